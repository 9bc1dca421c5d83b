#include "introspect/buildtree/ninja_deps.h"

#include <cstring>
#include <unordered_map>

#include "engine/core/error.h"
#include "introspect/support/json_file.h"
#include "introspect/support/process.h"

namespace glassbox::introspect {
namespace {

constexpr std::string_view kSignature = "# ninjadeps\n";
constexpr uint32_t kDepsRecordBit = 0x80000000u;
// Ninja never writes records larger than this; anything bigger is corruption.
constexpr uint32_t kMaxRecordSize = (1u << 24);

uint32_t load_u32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Keeps only the latest record per output, in first-seen order.
void add_record(NinjaDeps& deps, std::unordered_map<std::string, size_t>& index, NinjaDepsRecord record) {
  auto [it, inserted] = index.try_emplace(record.output, deps.records.size());
  if (inserted) deps.records.push_back(std::move(record));
  else deps.records[it->second] = std::move(record);
}

}  // namespace

const NinjaDepsRecord* NinjaDeps::find(std::string_view output) const {
  for (const auto& r : records)
    if (r.output == output) return &r;
  return nullptr;
}

NinjaDeps parse_ninja_deps_binary(std::string_view bytes, std::string_view origin) {
  NinjaDeps deps;
  deps.file = std::string(origin);
  if (bytes.size() < kSignature.size() + 4 || bytes.substr(0, kSignature.size()) != kSignature) {
    throw Error(detail::str_cat(origin, ": not a .ninja_deps file (missing the \"# ninjadeps\" signature)"));
  }
  deps.version = static_cast<int>(load_u32(bytes.data() + kSignature.size()));
  if (deps.version != 3 && deps.version != 4) {
    throw Error(detail::str_cat(origin, ": unsupported .ninja_deps version ", deps.version, " (supported: 3 and 4)"));
  }
  const size_t mtime_bytes = deps.version == 4 ? 8 : 4;

  std::vector<std::string> paths;  // node id -> path
  std::unordered_map<std::string, size_t> index;
  size_t pos = kSignature.size() + 4;
  while (pos < bytes.size()) {
    if (bytes.size() - pos < 4) {
      deps.truncated = true;
      break;
    }
    const uint32_t head = load_u32(bytes.data() + pos);
    const bool is_deps = (head & kDepsRecordBit) != 0;
    const uint32_t size = head & ~kDepsRecordBit;
    if (size > kMaxRecordSize || size % 4 != 0) {
      throw Error(detail::str_cat(origin, ": corrupt record at byte ", pos, " (size ", size, ")"));
    }
    if (bytes.size() - pos - 4 < size) {
      deps.truncated = true;  // Ninja was interrupted while writing; the records before are fine
      break;
    }
    const char* body = bytes.data() + pos + 4;
    if (is_deps) {
      if (size < 4 + mtime_bytes) throw Error(detail::str_cat(origin, ": deps record too short at byte ", pos));
      const uint32_t out_id = load_u32(body);
      if (out_id >= paths.size()) {
        throw Error(detail::str_cat(origin, ": deps record at byte ", pos, " names unknown path id ", out_id));
      }
      NinjaDepsRecord record;
      record.output = paths[out_id];
      if (mtime_bytes == 8) {
        uint64_t mtime;
        std::memcpy(&mtime, body + 4, 8);
        record.mtime = static_cast<int64_t>(mtime);
      } else {
        record.mtime = load_u32(body + 4);
      }
      const size_t count = (size - 4 - mtime_bytes) / 4;
      record.inputs.reserve(count);
      for (size_t i = 0; i < count; ++i) {
        const uint32_t id = load_u32(body + 4 + mtime_bytes + 4 * i);
        if (id >= paths.size()) {
          throw Error(detail::str_cat(origin, ": deps record at byte ", pos, " names unknown path id ", id));
        }
        record.inputs.push_back(paths[id]);
      }
      add_record(deps, index, std::move(record));
    } else {
      // A path, NUL-padded to 4 bytes, then the one's complement of its id as a check.
      if (size < 8) throw Error(detail::str_cat(origin, ": path record too short at byte ", pos));
      size_t length = size - 4;
      while (length > 0 && body[length - 1] == '\0') --length;
      const uint32_t check = load_u32(body + size - 4);
      if (~check != paths.size()) {
        throw Error(detail::str_cat(origin, ": path record at byte ", pos, " has a bad checksum"));
      }
      paths.emplace_back(body, length);
    }
    pos += 4 + size;
  }
  return deps;
}

NinjaDeps parse_ninja_deps_text(std::string_view text, std::string_view origin) {
  // "<output>: #deps N, deps mtime M (VALID|STALE)" then N indented input lines, then a blank line.
  NinjaDeps deps;
  deps.file = std::string(origin);
  std::unordered_map<std::string, size_t> index;
  NinjaDepsRecord current;
  bool open = false;
  size_t pos = 0, line_no = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) {
      if (open) add_record(deps, index, std::move(current)), current = {}, open = false;
      continue;
    }
    if (line.front() == ' ' || line.front() == '\t') {
      if (!open) throw Error(detail::str_cat(origin, ":", line_no, ": input line outside a record"));
      const size_t first = line.find_first_not_of(" \t");
      current.inputs.emplace_back(line.substr(first));
      continue;
    }
    const size_t marker = line.find(": #deps ");
    if (marker == std::string_view::npos) {
      throw Error(detail::str_cat(origin, ":", line_no, ": expected \"<output>: #deps N, deps mtime M\""));
    }
    if (open) add_record(deps, index, std::move(current)), current = {};
    current.output = std::string(line.substr(0, marker));
    if (const size_t m = line.find("deps mtime "); m != std::string_view::npos) {
      current.mtime = std::strtoll(std::string(line.substr(m + 11)).c_str(), nullptr, 10);
    }
    open = true;
  }
  if (open) add_record(deps, index, std::move(current));
  return deps;
}

NinjaDeps run_ninja_deps_tool(const std::filesystem::path& build_dir, const std::string& ninja) {
  const ProcessResult result = run_process({ninja, "-C", build_dir.string(), "-t", "deps"});
  if (result.exit_code != 0) {
    throw Error(detail::str_cat(ninja, " -C ", build_dir.string(), " -t deps: failed (exit ", result.exit_code,
                                "): ", result.error_output));
  }
  return parse_ninja_deps_text(result.output, detail::str_cat("ninja -t deps in ", build_dir.string()));
}

NinjaDeps read_ninja_deps(const std::filesystem::path& build_dir, const std::string& ninja) {
  std::error_code ec;
  if (!std::filesystem::is_directory(build_dir, ec)) throw Error(build_dir.string() + ": no such build directory");
  const auto file = build_dir / ".ninja_deps";
  if (std::filesystem::exists(file, ec)) {
    try {
      return parse_ninja_deps_binary(read_text_file(file), file.string());
    } catch (const Error&) {
      if (ninja.empty()) throw;
    }
  } else if (ninja.empty() || !std::filesystem::exists(build_dir / "build.ninja", ec)) {
    throw Error(file.string() + ": no such file; is this a Ninja build directory that has been built?");
  }
  return run_ninja_deps_tool(build_dir, ninja);
}

}  // namespace glassbox::introspect
