// scan_sources() with libclang: one CXIndex per worker thread, one translation unit at a time.
#include <clang-c/Index.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "engine/core/error.h"
#include "graphs/graph.h"
#include "introspect/source/libclang_arguments.h"
#include "introspect/source/source_scan.h"
#include "introspect/support/paths.h"

namespace glassbox::introspect {
namespace {

const std::set<std::string, std::less<>> kBlockMacros = {"GLASSBOX_LIBRARY",       "GLASSBOX_LIBRARY_FRAGMENT",
                                                         "GLASSBOX_LIBRARY_IMPL",  "TORCH_LIBRARY",
                                                         "TORCH_LIBRARY_FRAGMENT", "TORCH_LIBRARY_IMPL"};

std::string take(CXString s) {
  const char* c = clang_getCString(s);
  std::string out = c ? c : "";
  clang_disposeString(s);
  return out;
}

struct Place {
  CXFile file = nullptr;
  std::string path;
  unsigned line = 0;
  unsigned offset = 0;
};

// Where a location ends up after macro expansion (a token inside a macro: the macro's use).
Place expansion_of(CXSourceLocation loc) {
  Place p;
  unsigned column = 0;
  clang_getExpansionLocation(loc, &p.file, &p.line, &column, &p.offset);
  if (p.file) p.path = normalize_path(take(clang_getFileName(p.file)));
  return p;
}

// Kernels are named by their qualified name ("glassbox::native::add_cpu").
std::string qualified_name(CXCursor c) {
  std::string name = take(clang_getCursorSpelling(c));
  for (CXCursor p = clang_getCursorSemanticParent(c); !clang_Cursor_isNull(p) && p.kind != CXCursor_TranslationUnit;
       p = clang_getCursorSemanticParent(p)) {
    std::string part = take(clang_getCursorSpelling(p));
    if (part.empty()) part = p.kind == CXCursor_Namespace ? "(anonymous namespace)" : "(anonymous)";
    name = part + "::" + name;
  }
  return name;
}

struct KernelSite {
  std::string name, file;
  int line = 0;
};

struct Block {
  std::string macro, ns, key, file;
  unsigned line = 0, begin = 0, end = 0;  // offsets of the macro use in the main file
};

struct UnitResult {
  std::vector<SourceRegistration> registrations;
  std::unordered_map<std::string, KernelSite> definitions;  // USR -> definition in this unit's main file
  std::optional<UnitError> error;
};

class UnitScanner {
 public:
  UnitScanner(CXTranslationUnit tu, std::string unit, std::string main_text, const std::string& root)
      : tu_(tu), unit_(std::move(unit)), main_text_(std::move(main_text)), root_(root) {}

  void run(UnitResult& result) {
    main_file_ = clang_getFile(tu_, unit_.c_str());
    clang_visitChildren(clang_getTranslationUnitCursor(tu_), &UnitScanner::visit_top, this);
    for (const auto& fn : functions_) {
      const Place start = expansion_of(clang_getRangeStart(clang_getCursorExtent(fn)));
      const Block* block = nullptr;
      for (const auto& b : blocks_)
        if (start.offset >= b.begin && start.offset <= b.end) block = &b;
      if (!block) {
        const Place at = expansion_of(clang_getCursorLocation(fn));
        result.definitions[take(clang_getCursorUSR(fn))] =
            KernelSite{qualified_name(fn), relative(at.path), int(at.line)};
        continue;
      }
      current_ = block;
      out_ = &result.registrations;
      clang_visitChildren(fn, &UnitScanner::visit_block, this);
    }
  }

 private:
  std::string relative(const std::string& path) const { return graphs::path_relative_to(path, root_); }

  static CXChildVisitResult visit_top(CXCursor c, CXCursor, CXClientData data) {
    auto& self = *static_cast<UnitScanner*>(data);
    // Where the cursor's text was written after expansion: a block's function is spelled inside
    // a macro, which clang_Location_isFromMainFile() does not count as the main file.
    CXFile file = nullptr;
    clang_getExpansionLocation(clang_getCursorLocation(c), &file, nullptr, nullptr, nullptr);
    if (!file || !clang_File_isEqual(file, self.main_file_)) return CXChildVisit_Continue;
    switch (c.kind) {
      case CXCursor_MacroExpansion: self.add_block(c); return CXChildVisit_Continue;
      case CXCursor_Namespace:
      case CXCursor_LinkageSpec:
      case CXCursor_ClassDecl:
      case CXCursor_StructDecl: return CXChildVisit_Recurse;
      case CXCursor_FunctionDecl:
      case CXCursor_CXXMethod:
        if (clang_isCursorDefinition(c) || self.has_skipped_body(c)) self.functions_.push_back(c);
        return CXChildVisit_Continue;
      default: return CXChildVisit_Continue;
    }
  }

  // A definition whose body was skipped is not reported as a definition; its text still has the
  // body's braces, right after (or at the end of) its extent.
  bool has_skipped_body(CXCursor c) const {
    unsigned end = 0;
    CXFile file = nullptr;
    clang_getExpansionLocation(clang_getRangeEnd(clang_getCursorExtent(c)), &file, nullptr, nullptr, &end);
    if (!file || !clang_File_isEqual(file, main_file_) || end == 0 || end > main_text_.size()) return false;
    if (main_text_[end - 1] == '}') return true;
    const auto next = main_text_.find_first_not_of(" \t\r\n", end);  // the extent may stop before the body
    return next != std::string::npos && main_text_[next] == '{';
  }

  std::vector<std::string> tokens(CXSourceRange range) const {
    CXToken* toks = nullptr;
    unsigned n = 0;
    clang_tokenize(tu_, range, &toks, &n);
    std::vector<std::string> out;
    out.reserve(n);
    for (unsigned i = 0; i < n; ++i) out.push_back(take(clang_getTokenSpelling(tu_, toks[i])));
    clang_disposeTokens(tu_, toks, n);
    return out;
  }

  void add_block(CXCursor c) {
    std::string name = take(clang_getCursorSpelling(c));
    if (!kBlockMacros.count(name)) return;
    const CXSourceRange range = clang_getCursorExtent(c);
    Block b;
    b.macro = name;
    const Place start = expansion_of(clang_getRangeStart(range));
    b.file = relative(start.path), b.line = start.line, b.begin = start.offset;
    b.end = expansion_of(clang_getRangeEnd(range)).offset;
    // NAME ( ns , key , m ): the arguments split at top-level commas.
    std::vector<std::string> args(1);
    int depth = 0;
    for (const auto& t : tokens(range)) {
      if (t == "(" && depth++ == 0) continue;
      if (t == ")" && --depth == 0) break;
      if (depth == 1 && t == ",") args.emplace_back();
      else if (depth >= 1) args.back() += t;
    }
    b.ns = args.size() > 0 ? args[0] : "";
    if (name.ends_with("_IMPL") && args.size() > 1) b.key = args[1];
    blocks_.push_back(std::move(b));
  }

  static CXChildVisitResult visit_block(CXCursor c, CXCursor, CXClientData data) {
    auto& self = *static_cast<UnitScanner*>(data);
    if (c.kind == CXCursor_CallExpr) self.add_call(c);
    return CXChildVisit_Recurse;
  }

  // The written arguments of a call: default arguments (the source_location) have no extent.
  std::vector<CXCursor> written_arguments(CXCursor call) const {
    std::vector<CXCursor> out;
    const int n = clang_Cursor_getNumArguments(call);
    for (int i = 0; i < n; ++i) {
      CXCursor a = clang_Cursor_getArgument(call, unsigned(i));
      const CXSourceRange r = clang_getCursorExtent(a);
      if (clang_Range_isNull(r) || clang_equalLocations(clang_getRangeStart(r), clang_getRangeEnd(r))) continue;
      out.push_back(a);
    }
    return out;
  }

  template <class Pred>
  static std::optional<CXCursor> find_in(CXCursor root, Pred pred) {
    struct State {
      Pred* pred;
      std::optional<CXCursor> found;
    } state{&pred, std::nullopt};
    if (pred(root)) return root;
    clang_visitChildren(
        root,
        [](CXCursor c, CXCursor, CXClientData d) {
      auto& s = *static_cast<State*>(d);
      if ((*s.pred)(c)) {
        s.found = c;
        return CXChildVisit_Break;
      }
      return CXChildVisit_Recurse;
        },
        &state);
    return state.found;
  }

  std::string string_argument(CXCursor arg) const {
    if (auto lit = find_in(arg, [](CXCursor c) { return c.kind == CXCursor_StringLiteral; })) {
      CXEvalResult r = clang_Cursor_Evaluate(*lit);
      std::string s;
      if (r && clang_EvalResult_getKind(r) == CXEval_StrLiteral) s = clang_EvalResult_getAsStr(r);
      if (r) clang_EvalResult_dispose(r);
      if (!s.empty()) return s;
    }
    // A literal written through a macro, or not a literal: the concatenated string tokens.
    std::string out;
    for (const auto& t : tokens(clang_getCursorExtent(arg)))
      if (t.size() >= 2 && t.front() == '"') out += t.substr(1, t.size() - 2);
    return out;
  }

  struct Kernel {
    std::string name, usr, file;
    int line = 0;
    bool defined = false;
  };

  // PyTorch's wrappers around a kernel: the kernel is the function they name, not the wrapper.
  static bool is_kernel_wrapper(CXCursor function) {
    static const std::set<std::string, std::less<>> kWrappers = {"makeFromBoxedFunction",
                                                                 "makeFromUnboxedFunction",
                                                                 "makeFromBoxedKernel",
                                                                 "makeFallthrough",
                                                                 "makeNamedNotSupported",
                                                                 "makeFromUnboxedRuntimeFunction",
                                                                 "get"};
    const std::string parent = take(clang_getCursorSpelling(clang_getCursorSemanticParent(function)));
    return (parent == "CppFunction" || parent == "CompileTimeFunctionPointer") &&
           kWrappers.count(take(clang_getCursorSpelling(function)));
  }

  // The function named, as written, by TORCH_FN(f) or makeFromBoxedFunction<&f>() among an
  // argument's tokens; "" when neither is there.
  static std::string function_named_by_wrapper(const std::vector<std::string>& toks) {
    for (std::size_t i = 0; i + 1 < toks.size(); ++i) {
      const bool macro = toks[i] == "TORCH_FN" && toks[i + 1] == "(";
      const bool boxed = toks[i] == "makeFromBoxedFunction" && toks[i + 1] == "<";
      if (!macro && !boxed) continue;
      const std::string open = toks[i + 1], close = macro ? ")" : ">";
      std::string name;
      int depth = 0;
      for (std::size_t j = i + 1; j < toks.size(); ++j) {
        if (toks[j] == open && depth++ == 0) continue;
        if (toks[j] == close && --depth == 0) break;
        if (!(name.empty() && toks[j] == "&")) name += toks[j];
      }
      return name;
    }
    return "";
  }

  Kernel kernel_argument(CXCursor arg) const {
    Kernel k;
    const auto toks = tokens(clang_getCursorExtent(arg));
    if (std::find(toks.begin(), toks.end(), "makeFallthrough") != toks.end())
      return Kernel{"(fallthrough)", "", "", 0, false};
    const std::string named = function_named_by_wrapper(toks);
    const std::string named_last = named.substr(named.rfind(':') == std::string::npos ? 0 : named.rfind(':') + 1);
    auto is_function = [](CXCursorKind kind) {
      return kind == CXCursor_FunctionDecl || kind == CXCursor_CXXMethod || kind == CXCursor_FunctionTemplate;
    };
    auto ref = find_in(arg, [&](CXCursor c) {
      if (c.kind == CXCursor_LambdaExpr) return named.empty();
      if (c.kind != CXCursor_DeclRefExpr && c.kind != CXCursor_MemberRefExpr) return false;
      const CXCursor target = clang_getCursorReferenced(c);
      if (!is_function(target.kind) || is_kernel_wrapper(target)) return false;
      return named.empty() || take(clang_getCursorSpelling(target)) == named_last;
    });
    if (!ref) {
      // The kernel could not be resolved (a unit with errors, a name libclang did not bind): the
      // function a wrapper names as written, else the argument's last identifier.
      if (!named.empty()) {
        k.name = named.rfind("::", 0) == 0 ? named.substr(2) : named;
        return k;
      }
      for (auto it = toks.rbegin(); it != toks.rend(); ++it)
        if (!it->empty() && (std::isalpha(static_cast<unsigned char>((*it)[0])) || (*it)[0] == '_') &&
            *it != "TORCH_FN") {
          k.name = *it;
          break;
        }
      return k;
    }
    CXCursor target = *ref;
    if (ref->kind != CXCursor_LambdaExpr) target = clang_getCursorReferenced(*ref);
    CXCursor def = ref->kind == CXCursor_LambdaExpr ? target : clang_getCursorDefinition(target);
    k.defined = !clang_Cursor_isNull(def);
    const Place at = expansion_of(clang_getCursorLocation(k.defined ? def : target));
    k.file = relative(at.path), k.line = int(at.line);
    if (ref->kind == CXCursor_LambdaExpr) {
      k.name = "(lambda)";
    } else {
      k.name = qualified_name(target);
      k.usr = take(clang_getCursorUSR(target));
    }
    return k;
  }

  void add_call(CXCursor call) {
    const std::string method = take(clang_getCursorSpelling(call));
    if (method != "def" && method != "impl" && method != "fallback") return;
    const CXCursor callee = clang_getCursorReferenced(call);
    const std::string owner = take(clang_getCursorSpelling(clang_getCursorSemanticParent(callee)));
    if (owner != "Library") return;
    const std::vector<CXCursor> args = written_arguments(call);

    SourceRegistration r;
    r.kind = method;
    r.block = current_->macro, r.ns = current_->ns, r.block_file = current_->file, r.block_line = int(current_->line);
    r.unit = relative(unit_);
    const Place at = expansion_of(clang_getCursorLocation(call));
    r.file = relative(at.path), r.line = int(at.line);
    if (method != "fallback") {
      if (args.empty()) return;
      const std::string text = string_argument(args[0]);
      const OperatorNameParts parts = split_operator_name(text);
      if (!parts.ns.empty()) r.ns = parts.ns;
      r.op = parts.op, r.overload = parts.overload;
      if (method == "def") r.schema = text;
    }
    if (method != "def") {
      r.dispatch_key = current_->key;
      if (method == "impl" && args.size() >= 3) {  // impl(name, key, kernel)
        const auto key_tokens = tokens(clang_getCursorExtent(args[1]));
        if (!key_tokens.empty()) r.dispatch_key = key_tokens.back();
      }
      if (r.dispatch_key.empty()) r.dispatch_key = "CompositeImplicitAutograd";  // impl() in a def block
      if (!args.empty()) {
        Kernel k = kernel_argument(args.back());
        if (k.name.find("fallthrough") != std::string::npos) k = Kernel{"(fallthrough)", "", "", 0, false};
        r.kernel = k.name, r.kernel_usr = k.usr, r.kernel_file = k.file, r.kernel_line = k.line;
        r.kernel_defined = k.defined;
      }
    }
    yaml_reference(r, at);
    out_->push_back(std::move(r));
  }

  // Generated registrations name their YAML line in a trailing comment.
  void yaml_reference(SourceRegistration& r, const Place& at) const {
    if (at.path != unit_) return;
    std::size_t pos = 0;
    for (unsigned line = 1; line < at.line && pos != std::string::npos; ++line) {
      pos = main_text_.find('\n', pos);
      if (pos != std::string::npos) ++pos;
    }
    if (pos == std::string::npos) return;
    const std::string text = main_text_.substr(pos, main_text_.find('\n', pos) - pos);
    static const std::regex yaml(R"(//\s*([^\s:]+\.ya?ml):(\d+))");
    std::smatch m;
    if (std::regex_search(text, m, yaml)) r.yaml_file = m[1], r.yaml_line = std::stoi(m[2]);
  }

  CXTranslationUnit tu_;
  CXFile main_file_ = nullptr;
  std::string unit_, main_text_;
  const std::string& root_;
  std::vector<Block> blocks_;
  std::vector<CXCursor> functions_;
  const Block* current_ = nullptr;
  std::vector<SourceRegistration>* out_ = nullptr;
};

bool names_registration_macro(const std::string& text) {
  return text.find("GLASSBOX_LIBRARY") != std::string::npos || text.find("TORCH_LIBRARY") != std::string::npos;
}

// A line that starts with a block macro and its "(": a block is written there (a mention in a
// comment or an error message is not).
bool opens_registration_block(const std::string& text) {
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::size_t i = text.find_first_not_of(" \t", pos);
    if (i < end && (text.compare(i, 16, "GLASSBOX_LIBRARY") == 0 || text.compare(i, 13, "TORCH_LIBRARY") == 0)) {
      while (i < end && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
      while (i < end && (text[i] == ' ' || text[i] == '\t')) ++i;
      if (i < end && text[i] == '(') return true;
    }
    pos = end + 1;
  }
  return false;
}

// The unit's errors (and fatal errors), each as "file:line:col: error: ...".
std::optional<UnitError> unit_errors(CXTranslationUnit tu, const std::string& unit) {
  constexpr std::size_t kMaxListed = 50;
  const unsigned n = clang_getNumDiagnostics(tu);
  UnitError e{unit, "", {}, 0, true};
  unsigned errors = 0;
  for (unsigned i = 0; i < n; ++i) {
    CXDiagnostic d = clang_getDiagnostic(tu, i);
    if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
      ++errors;
      if (e.diagnostics.size() < kMaxListed)
        e.diagnostics.push_back(
            take(clang_formatDiagnostic(d, CXDiagnostic_DisplaySourceLocation | CXDiagnostic_DisplayColumn)));
    }
    clang_disposeDiagnostic(d);
  }
  if (errors == 0) return std::nullopt;
  e.message = e.diagnostics.front();
  if (errors > 1) e.message += " (and " + std::to_string(errors - 1) + " more error" + (errors > 2 ? "s" : "") + ")";
  if (errors > kMaxListed) e.diagnostics.push_back("... and " + std::to_string(errors - kMaxListed) + " more errors");
  return e;
}

const char* error_code_text(CXErrorCode code) {
  switch (code) {
    case CXError_Failure: return "libclang failed to parse it";
    case CXError_Crashed: return "libclang crashed while parsing it";
    case CXError_InvalidArguments: return "invalid arguments";
    case CXError_ASTReadError: return "an AST file could not be read";
    default: return "unknown libclang error";
  }
}

// A file a parsed unit read (its main file or a header), by its contents: a time stamp would miss
// a rewrite within the file system's clock tick.
struct FileStamp {
  std::string path;
  std::size_t size = 0;
  std::size_t hash = 0;
  bool operator==(const FileStamp&) const = default;
};

FileStamp stamp_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  return {path, text.size(), in ? std::hash<std::string>{}(text) : 0};
}

std::vector<FileStamp> stamps_of_inclusions(CXTranslationUnit tu) {
  std::vector<FileStamp> stamps;
  clang_getInclusions(
      tu,
      [](CXFile file, CXSourceLocation*, unsigned, CXClientData data) {
    static_cast<std::vector<FileStamp>*>(data)->push_back(stamp_of(take(clang_getFileName(file))));
      },
      &stamps);
  return stamps;
}

// Units this process has parsed, by their file, flags and source root: asking again (a notebook's
// next view, `ops` with another key or format) reuses the result while neither the unit nor any
// file it included has changed since it was parsed.
struct ParsedUnit {
  std::vector<FileStamp> files;
  UnitResult result;
};
std::mutex parsed_mutex;
std::unordered_map<std::string, ParsedUnit> parsed_units;

std::string unit_key(const CompileCommand& c, const std::string& root) {
  std::string key = root + '\f' + c.file;
  for (const auto& a : libclang_arguments(c)) key += '\f' + a;
  return key;
}

// Parses and scans the unit; `files` gets what it read when libclang parsed it.
UnitResult parse_unit(CXIndex index, const CompileCommand& c, const std::string& root, std::vector<FileStamp>& files);

UnitResult scan_unit(CXIndex index, const CompileCommand& c, const std::string& root) {
  const std::string key = unit_key(c, root);
  std::optional<ParsedUnit> known;
  {
    std::lock_guard lock(parsed_mutex);
    if (auto it = parsed_units.find(key); it != parsed_units.end()) known = it->second;
  }
  if (known &&
      std::all_of(known->files.begin(), known->files.end(), [](const FileStamp& f) { return stamp_of(f.path) == f; }))
    return known->result;
  std::vector<FileStamp> files;
  UnitResult result = parse_unit(index, c, root, files);
  // A unit with errors is parsed again: the header it missed may be there now.
  if (!files.empty() && !result.error) {
    std::lock_guard lock(parsed_mutex);
    parsed_units[key] = ParsedUnit{std::move(files), result};
  }
  return result;
}

UnitResult parse_unit(CXIndex index, const CompileCommand& c, const std::string& root, std::vector<FileStamp>& files) {
  UnitResult result;
  std::ifstream in(c.file, std::ios::binary);
  if (!in) {
    result.error =
        UnitError{c.file, c.file + ": cannot be read (is the build directory older than the sources?)", {}, 0, false};
    result.error->diagnostics.push_back(result.error->message);
    return result;
  }
  std::ostringstream text;
  text << in.rdbuf();
  const std::string main_text = text.str();
  const bool has_blocks = names_registration_macro(main_text);
  // Without blocks only definitions matter: bodies are skipped. With blocks the bodies must be
  // parsed (a block is a function body); the visit below still enters only the blocks.
  // KeepGoing: after a fatal error (a missing header) clang would otherwise stop instantiating
  // templates, and every impl() call (a template) would be lost.
  const unsigned flags = CXTranslationUnit_KeepGoing | (has_blocks ? CXTranslationUnit_DetailedPreprocessingRecord
                                                                   : CXTranslationUnit_SkipFunctionBodies);
  const std::vector<std::string> args = libclang_arguments(c);
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  CXTranslationUnit tu = nullptr;
  const CXErrorCode code =
      clang_parseTranslationUnit2(index, c.file.c_str(), argv.data(), int(argv.size()), nullptr, 0, flags, &tu);
  if (code != CXError_Success || !tu) {
    result.error = UnitError{c.file, c.file + ": " + error_code_text(code), {}, 0, false};
    result.error->diagnostics.push_back(result.error->message);
    return result;
  }
  // libclang recovers from most errors (a missing header, an unknown member): what it could read
  // of the unit is scanned all the same, and the errors are reported beside it.
  result.error = unit_errors(tu, c.file);
  UnitScanner(tu, c.file, main_text, root).run(result);
  if (result.error) result.error->registrations = result.registrations.size();
  files = stamps_of_inclusions(tu);
  files.push_back(stamp_of(c.file));
  clang_disposeTranslationUnit(tu);
  return result;
}

}  // namespace

bool source_scan_available() { return true; }

SourceScan scan_sources(const CompileDatabase& db, const SourceScanOptions& options) {
  SourceScan scan;
  scan.source_root = options.source_root.empty() ? "" : normalize_path(options.source_root);
  std::optional<std::regex> filter;
  if (!options.unit_filter.empty()) {
    try {
      filter.emplace(options.unit_filter);
    } catch (const std::regex_error& e) {
      throw ValueError("source scan: the unit filter \"" + options.unit_filter +
                       "\" is not a valid regex: " + e.what());
    }
  }
  // One entry per source file (a file compiled by two targets is scanned once).
  std::vector<const CompileCommand*> units;
  std::unordered_set<std::string> seen;
  for (const auto& c : db.commands) {
    if (filter && !std::regex_search(c.file, *filter)) continue;
    if (!seen.insert(c.file).second) continue;
    if (is_cuda_unit(c) || options.registering_units_only) {
      std::ifstream in(c.file);
      const std::string text((std::istreambuf_iterator<char>(in)), {});
      const bool registers =
          options.registering_units_only ? opens_registration_block(text) : names_registration_macro(text);
      if (in && !registers) {
        ++scan.skipped_units;
        continue;
      }
    }
    units.push_back(&c);
  }

  std::vector<UnitResult> results(units.size());
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t jobs = std::min<std::size_t>(options.jobs > 0 ? unsigned(options.jobs) : cores, units.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    CXIndex index = clang_createIndex(0, 0);
    for (std::size_t i; (i = next.fetch_add(1)) < units.size();)
      results[i] = scan_unit(index, *units[i], scan.source_root);
    clang_disposeIndex(index);
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < jobs; ++t) threads.emplace_back(worker);
  if (jobs > 0) worker();
  for (auto& t : threads) t.join();

  // Kernels are usually defined in another unit than the one registering them.
  std::unordered_map<std::string, KernelSite> definitions;
  for (const auto& r : results) definitions.insert(r.definitions.begin(), r.definitions.end());
  auto relative = [&](const std::string& path) { return graphs::path_relative_to(path, scan.source_root); };
  for (std::size_t i = 0; i < results.size(); ++i) {
    scan.units.push_back(relative(units[i]->file));
    if (results[i].error) {
      UnitError e = *results[i].error;
      e.file = relative(e.file);
      scan.errors.push_back(std::move(e));
    }
    for (auto& r : results[i].registrations) {
      if (auto d = definitions.find(r.kernel_usr); !r.kernel_usr.empty() && d != definitions.end()) {
        r.kernel_file = d->second.file, r.kernel_line = d->second.line, r.kernel_defined = true;
      }
      scan.registrations.push_back(std::move(r));
    }
  }
  std::stable_sort(scan.registrations.begin(), scan.registrations.end(),
                   [](const auto& a, const auto& b) { return std::tie(a.file, a.line) < std::tie(b.file, b.line); });
  std::sort(scan.errors.begin(), scan.errors.end(), [](const auto& a, const auto& b) { return a.file < b.file; });
  return scan;
}

}  // namespace glassbox::introspect
