#include "introspect/buildtree/build_index.h"

#include <filesystem>

#include "introspect/support/paths.h"

namespace glassbox::introspect {

std::string absolute_path(std::string_view path, std::string_view base) { return normalize_path(path, base); }

std::string target_from_object_path(std::string_view output) {
  constexpr std::string_view kMarker = "CMakeFiles/";
  size_t pos = output.rfind(kMarker);
  while (pos != std::string_view::npos) {
    const size_t name_start = pos + kMarker.size();
    const size_t slash = output.find('/', name_start);
    constexpr std::string_view kDir = ".dir";
    if (slash != std::string_view::npos && slash >= name_start + kDir.size() + 1 &&
        output.substr(slash - kDir.size(), kDir.size()) == kDir) {
      return std::string(output.substr(name_start, slash - kDir.size() - name_start));
    }
    if (pos == 0) break;
    pos = output.rfind(kMarker, pos - 1);
  }
  return "";
}

BuildIndex::BuildIndex(const FileApiReply& reply, std::string_view configuration)
    : build_dir_(reply.codemodel.build_dir), source_dir_(reply.codemodel.source_dir) {
  configuration_ = &reply.configuration(configuration);
  for (const Target& t : configuration_->targets) {
    by_id_[t.id] = &t;
    for (const auto& a : t.artifacts) {
      const std::string abs = absolute_path(a, build_dir_);
      by_artifact_[abs] = &t;
      by_artifact_name_.try_emplace(std::filesystem::path(abs).filename().string(), &t);
      std::error_code ec;
      const auto real = std::filesystem::canonical(abs, ec);
      if (!ec) by_real_artifact_.try_emplace(real.string(), &t);
    }
    for (const auto& s : t.sources) {
      if (s.compile_group < 0) continue;
      by_source_[absolute_path(s.path, source_dir_)].push_back(&t);
    }
  }
}

std::string BuildIndex::target_of_output(std::string_view output) const {
  if (const Target* t = target_of_artifact(absolute_path(output, build_dir_))) return t->name;
  return target_from_object_path(output);
}

namespace {

// "libfoo.so.1.2" -> "libfoo.so"; any other name unchanged.
std::string_view without_so_version(std::string_view name) {
  const size_t so = name.rfind(".so.");
  if (so == std::string_view::npos) return name;
  for (char c : name.substr(so + 4))
    if (c != '.' && (c < '0' || c > '9')) return name;
  return name.substr(0, so + 3);
}

}  // namespace

const Target* BuildIndex::target_of_artifact(std::string_view path) const {
  auto it = by_artifact_.find(std::string(path));
  if (it != by_artifact_.end()) return it->second;
  // A shared library is reached through its version symlinks (libfoo.so -> libfoo.so.0 -> libfoo.so.0.1)
  // and linked by its SONAME: the same file once resolved, or the same name without the version in
  // the same directory.
  std::error_code ec;
  const auto real = std::filesystem::canonical(std::string(path), ec);
  if (!ec) {
    if (auto r = by_real_artifact_.find(real.string()); r != by_real_artifact_.end()) return r->second;
  }
  const std::filesystem::path p{std::string(path)};
  const std::string_view name_holder = without_so_version(p.filename().native());
  if (name_holder.size() != p.filename().native().size()) {
    if (auto u = by_artifact_.find((p.parent_path() / std::string(name_holder)).string()); u != by_artifact_.end()) {
      return u->second;
    }
  }
  return nullptr;
}

const Target* BuildIndex::target_of_artifact_name(std::string_view file_name) const {
  auto it = by_artifact_name_.find(std::string(file_name));
  if (it != by_artifact_name_.end()) return it->second;
  const std::string_view plain = without_so_version(file_name);
  if (plain.size() == file_name.size()) return nullptr;
  it = by_artifact_name_.find(std::string(plain));
  return it == by_artifact_name_.end() ? nullptr : it->second;
}

const std::vector<const Target*>& BuildIndex::targets_of_source(std::string_view source) const {
  static const std::vector<const Target*> none;
  auto it = by_source_.find(std::string(source));
  return it == by_source_.end() ? none : it->second;
}

const Target* BuildIndex::target_by_id(std::string_view id) const {
  auto it = by_id_.find(std::string(id));
  return it == by_id_.end() ? nullptr : it->second;
}

}  // namespace glassbox::introspect
