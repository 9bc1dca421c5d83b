// Would LLVM's Itanium demangler make `glassbox symbols` faster while printing exactly nm -C's names?
// Demangles every name of a library three ways, on one thread, and prints CPU seconds side by side:
//   libiberty   binutils' own demangler (what glassbox uses: the reference);
//   LLVM        llvm::itanium_demangle with a reused arena and output buffer (its own text);
//   LLVM exact  LLVM's parser with the printing adapted to binutils' where the two differ in form
//               ({lambda(...)#N}, {unnamed type#N}, "&f" for a plain function's address, no return
//               type in a local name's function, "operator<< <", clone suffixes), and libiberty for
//               every name with a construct where they differ otherwise (expressions, template
//               parameters in local names, empty packs, synthetic "auto" parameters, ...).
// It also counts the names whose text differs from libiberty's (LLVM exact must have none).
//   demangler_comparison LIB [runs=3]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include <llvm/Demangle/ItaniumDemangle.h>

#include "introspect/binary/demangle.h"
#include "introspect/binary/elf_file.h"

namespace gi = glassbox::introspect;
namespace ld = llvm::itanium_demangle;
using ld::Node;
using ld::OutputBuffer;

namespace {

double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

// "{lambda(int)#2}" numbering: binutils counts from 1, LLVM prints the mangled discriminator.
void print_number(OutputBuffer& ob, ld::StringView count) {
  const unsigned long n =
      count.empty() ? 1 : std::strtoul(std::string(count.begin(), count.end()).c_str(), nullptr, 10) + 2;
  const std::string s = std::to_string(n);
  ob += ld::StringView(s.data(), s.data() + s.size());
}

struct BinutilsClosure : ld::ClosureTypeName {
  using ld::ClosureTypeName::ClosureTypeName;
  void printLeft(OutputBuffer& ob) const override {
    match([&](ld::NodeArray, ld::NodeArray params, ld::StringView count) {
      ob += "{lambda(";
      params.printWithComma(ob);
      ob += ")#";
      print_number(ob, count);
      ob += "}";
    });
  }
};

struct BinutilsUnnamed : ld::UnnamedTypeName {
  using ld::UnnamedTypeName::UnnamedTypeName;
  void printLeft(OutputBuffer& ob) const override {
    match([&](ld::StringView count) {
      ob += "{unnamed type#";
      print_number(ob, count);
      ob += "}";
    });
  }
};

struct BinutilsLocalName : ld::LocalName {
  using ld::LocalName::LocalName;
  void printLeft(OutputBuffer& ob) const override {
    if (Encoding->getKind() == Node::KFunctionEncoding) {  // without its return type
      static_cast<const ld::FunctionEncoding*>(Encoding)->match(
          [&](const Node*, const Node* name, ld::NodeArray params, const Node* attrs, ld::Qualifiers cv,
              ld::FunctionRefQual ref) { ld::FunctionEncoding(nullptr, name, params, attrs, cv, ref).print(ob); });
    } else {
      Encoding->print(ob);
    }
    ob += "::";
    Entity->print(ob);
  }
};

bool plain_function(const Node* n) {
  if (n->getKind() != Node::KFunctionEncoding) return false;
  bool plain = false;
  static_cast<const ld::FunctionEncoding*>(n)->match(
      [&](const Node* ret, const Node*, ld::NodeArray, const Node* attrs, ld::Qualifiers cv, ld::FunctionRefQual ref) {
    plain = !ret && !attrs && cv == ld::QualNone && ref == ld::FrefQualNone;
  });
  return plain;
}

struct BinutilsAddressOf : ld::PrefixExpr {  // only "&" is let through (see Arena)
  using ld::PrefixExpr::PrefixExpr;
  void printLeft(OutputBuffer& ob) const override {
    match([&](ld::StringView prefix, Node* child) {
      ob += prefix;
      if (plain_function(child)) {
        static_cast<const ld::FunctionEncoding*>(child)->getName()->print(ob);
      } else if (child->getKind() == Node::KFunctionEncoding) {
        ob += "(";
        child->print(ob);
        ob += ")";
      } else {
        child->print(ob);
      }
    });
  }
};

struct BinutilsTemplateName : ld::NameWithTemplateArgs {
  using ld::NameWithTemplateArgs::NameWithTemplateArgs;
  void printLeft(OutputBuffer& ob) const override {
    Name->print(ob);
    if (ob.back() == '<') ob += " ";  // "operator<< <T>"
    TemplateArgs->print(ob);
  }
};

template <class T, class... Of>
constexpr bool one_of = (std::is_same_v<T, Of> || ...);

// The parser's node allocator: a reused arena that also swaps in the binutils-style nodes and marks
// the name "unsafe" (left to libiberty) when it makes a node whose text differs otherwise.
class Arena {
 public:
  bool adapt = true;  // false: LLVM's own nodes and text
  bool unsafe = false, local = false, closure = false, ctor_dtor = false;

  void reset() {
    block_ = 0, used_ = 0, capacity_ = 0;
    for (void* p : big_) std::free(p);
    big_.clear();
    unsafe = local = closure = ctor_dtor = false;
  }
  ~Arena() {
    reset();
    for (char* b : blocks_) std::free(b);
  }

  template <class T, class... A>
  Node* makeNode(A&&... a) {
    check<T>(a...);
    if (!adapt) return create<T>(std::forward<A>(a)...);
    if constexpr (std::is_same_v<T, ld::ClosureTypeName>) return create<BinutilsClosure>(std::forward<A>(a)...);
    else if constexpr (std::is_same_v<T, ld::UnnamedTypeName>) return create<BinutilsUnnamed>(std::forward<A>(a)...);
    else if constexpr (std::is_same_v<T, ld::LocalName>) return create<BinutilsLocalName>(std::forward<A>(a)...);
    else if constexpr (std::is_same_v<T, ld::PrefixExpr>) return create<BinutilsAddressOf>(std::forward<A>(a)...);
    else if constexpr (std::is_same_v<T, ld::NameWithTemplateArgs>)
      return create<BinutilsTemplateName>(std::forward<A>(a)...);
    else return create<T>(std::forward<A>(a)...);
  }
  void* allocateNodeArray(std::size_t n) { return allocate(n * sizeof(Node*)); }

 private:
  template <class T, class... A>
  void check(const A&... a) {
    if constexpr (std::is_same_v<T, ld::ClosureTypeName>) {
      closure = true;
      if (!std::get<0>(std::tie(a...)).empty()) unsafe = true;  // a template lambda
    } else if constexpr (std::is_same_v<T, ld::LocalName>) {
      local = true;
    } else if constexpr (std::is_same_v<T, ld::CtorDtorName>) {
      ctor_dtor = true;
    } else if constexpr (std::is_same_v<T, ld::PrefixExpr>) {
      const auto& [prefix, child] = std::tie(a...);
      const Node::Kind k = child->getKind();
      if (!(prefix == "&") || !(k == Node::KFunctionEncoding || k == Node::KNameType || k == Node::KNestedName))
        unsafe = true;
    } else if constexpr (std::is_same_v<T, ld::QualType>) {
      const Node::Kind k = std::get<0>(std::tie(a...))->getKind();
      if (k == Node::KQualType || k == Node::KFunctionType) unsafe = true;
    } else if constexpr (std::is_same_v<T, ld::FunctionType>) {
      const Node* ret = std::get<0>(std::tie(a...));
      if (ret->getKind() == Node::KReferenceType || ret->getKind() == Node::KPointerType) unsafe = true;
    } else if constexpr (std::is_same_v<T, ld::SpecialName>) {
      const ld::StringView what = std::get<0>(std::tie(a...));
      if (!(what == "vtable for " || what == "VTT for " || what == "typeinfo for " || what == "typeinfo name for " ||
            what == "guard variable for " || what == "non-virtual thunk to " || what == "virtual thunk to "))
        unsafe = true;
    } else if constexpr (std::is_same_v<T, ld::TemplateArgumentPack>) {
      if (std::get<0>(std::tie(a...)).empty()) unsafe = true;  // binutils prints "<A<B>>" after an empty pack
    } else if constexpr (std::is_same_v<T, ld::NameType>) {
      if constexpr (std::is_convertible_v<decltype(std::get<0>(std::tie(a...))), ld::StringView>) {
        const ld::StringView v(std::get<0>(std::tie(a...)));
        if (v == "std::nullptr_t" || v == "nullptr") unsafe = true;
      }
    } else if constexpr (one_of<T, ld::BinaryExpr, ld::ArraySubscriptExpr, ld::PostfixExpr, ld::ConditionalExpr,
                                ld::MemberExpr, ld::SubobjectExpr, ld::EnclosingExpr, ld::CastExpr,
                                ld::SizeofParamPackExpr, ld::CallExpr, ld::NewExpr, ld::DeleteExpr, ld::FunctionParam,
                                ld::ConversionExpr, ld::PointerToMemberConversionExpr, ld::InitListExpr, ld::FoldExpr,
                                ld::ThrowExpr, ld::StringLiteral, ld::LambdaExpr, ld::FloatLiteral, ld::DoubleLiteral,
                                ld::LongDoubleLiteral, ld::BracedExpr, ld::BracedRangeExpr, ld::PointerToMemberType,
                                ld::VectorType, ld::PixelVectorType, ld::CtorVtableSpecialName,
                                ld::StructuredBindingName, ld::VendorExtQualType, ld::BinaryFPType, ld::DotSuffix,
                                ld::ObjCProtoName, ld::EnableIfAttr, ld::NoexceptSpec, ld::DynamicExceptionSpec,
                                ld::LiteralOperator, ld::ElaboratedTypeSpefType, ld::PostfixQualifiedType,
                                ld::SyntheticTemplateParamName, ld::TypeTemplateParamDecl, ld::NonTypeTemplateParamDecl,
                                ld::TemplateTemplateParamDecl, ld::TemplateParamPackDecl,
                                ld::ForwardTemplateReference>) {
      unsafe = true;
    }
  }
  template <class U, class... A>
  Node* create(A&&... a) {
    return new (allocate(sizeof(U))) U(std::forward<A>(a)...);
  }
  void* allocate(std::size_t n) {
    n = (n + 15) & ~std::size_t{15};
    if (used_ + n > capacity_) {
      if (n > kBlock) return big_.emplace_back(std::malloc(n));
      if (block_ == blocks_.size()) blocks_.push_back(static_cast<char*>(std::malloc(kBlock)));
      current_ = blocks_[block_++];
      used_ = 0, capacity_ = kBlock;
    }
    void* p = current_ + used_;
    used_ += n;
    return p;
  }
  static constexpr std::size_t kBlock = 1 << 16;
  std::vector<char*> blocks_;
  std::vector<void*> big_;
  char* current_ = nullptr;
  std::size_t block_ = 0, used_ = 0, capacity_ = 0;
};

// Differences in a name's mangled form that no node shows: template parameters in a local
// entity, template template parameters with arguments, default-argument scopes, static functions
// named as template arguments.
bool unsafe_spelling(std::string_view m, const Arena& a) {
  bool encoding_argument = false;
  for (std::size_t q = 2; q + 1 < m.size(); ++q) {
    if (m[q] == 'T') {
      std::size_t r = q + 1;
      while (r < m.size() && m[r] >= '0' && m[r] <= '9') ++r;
      if (r < m.size() && m[r] == '_' && (a.local || a.closure || (r + 1 < m.size() && m[r + 1] == 'I'))) return true;
    } else if (m[q] == 'L') {
      if (m[q + 1] == '_' && q + 2 < m.size() && m[q + 2] == 'Z') encoding_argument = true;
      else if (encoding_argument && m[q + 1] >= '0' && m[q + 1] <= '9') return true;
    } else if (m[q] == 'E' && a.local && m[q + 1] == 'd' && q + 2 < m.size() &&
               (m[q + 2] == '_' || m[q + 2] == 'n' || (m[q + 2] >= '0' && m[q + 2] <= '9'))) {
      return true;
    }
  }
  return false;
}

class LlvmDemangler {
 public:
  // out = the demangled name; false when LLVM cannot parse it, or (exact) when its text may differ
  // from binutils' (out is then libiberty's).
  bool demangle(std::string_view name, bool exact, std::string& out) {
    out.clear();
    std::string_view core = name, suffix;
    if (exact) {
      if (const std::size_t dot = name.find('.'); dot != std::string_view::npos) {
        if (!gi::clone_suffixes(name.substr(dot), nullptr)) return fallback(name, out);
        core = name.substr(0, dot), suffix = name.substr(dot);
      }
    }
    parser_.reset(core.data(), core.data() + core.size());
    parser_.ASTAllocator.adapt = exact;
    Node* ast = parser_.parse();
    if (exact &&
        (!ast || parser_.ASTAllocator.unsafe || (parser_.ASTAllocator.closure && parser_.ASTAllocator.ctor_dtor) ||
         unsafe_spelling(core, parser_.ASTAllocator)))
      return fallback(name, out);
    if (!ast) return false;
    OutputBuffer ob(buffer_, capacity_);
    ast->print(ob);
    buffer_ = ob.getBuffer(), capacity_ = std::max(capacity_, ob.getBufferCapacity());
    out.assign(buffer_, ob.getCurrentPosition());
    suffixes_.clear();
    gi::clone_suffixes(suffix, &suffixes_);
    for (const auto s : suffixes_) out.append(" [clone ").append(s).append("]");
    return true;
  }
  std::size_t fallbacks = 0;

 private:
  bool fallback(std::string_view name, std::string& out) {
    ++fallbacks;
    reference_.demangle_into(name, out);
    return false;
  }
  ld::ManglingParser<Arena> parser_{nullptr, nullptr};
  char* buffer_ = static_cast<char*>(std::malloc(1 << 16));
  std::size_t capacity_ = 1 << 16;
  std::vector<std::string_view> suffixes_;
  gi::Demangler reference_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: demangler_comparison LIB [runs=3]\n");
    return 2;
  }
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  gi::ElfReadOptions options;
  options.tables = gi::SymbolTables::Symtab;
  options.demangle = false;
  options.copy_undemangled_names = false;
  const gi::ElfFile elf = gi::ElfFile::read(argv[1], options);
  std::vector<std::string_view> names;
  for (const auto& s : elf.symbols())
    if (gi::is_mangled(s.name)) names.push_back(s.name);

  std::vector<std::string> reference(names.size());
  double best[3] = {1e9, 1e9, 1e9};
  std::size_t differ[3] = {0, 0, 0}, fallbacks = 0;
  for (int run = 0; run < runs; ++run) {
    std::string out;
    gi::Demangler libiberty;
    double t = cpu_seconds();
    for (std::size_t i = 0; i < names.size(); ++i) libiberty.demangle_into(names[i], reference[i]);
    best[0] = std::min(best[0], cpu_seconds() - t);
    for (int exact = 0; exact <= 1; ++exact) {
      LlvmDemangler llvm;
      std::size_t d = 0;
      t = cpu_seconds();
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (!llvm.demangle(names[i], exact, out) && !exact) out.assign(names[i]);
        d += out != reference[i];  // compared inside the timing: the same small cost for both
      }
      best[1 + exact] = std::min(best[1 + exact], cpu_seconds() - t);
      differ[1 + exact] = d;
      if (exact) fallbacks = llvm.fallbacks;
    }
  }
  std::printf("%s: %zu mangled names, one thread, best of %d (CPU s)\n", argv[1], names.size(), runs);
  std::printf("%-12s %8s %10s %14s\n", "demangler", "CPU s", "vs libiberty", "names differ");
  const char* labels[3] = {"libiberty", "LLVM", "LLVM exact"};
  for (int k = 0; k < 3; ++k)
    std::printf("%-12s %8.3f %9.2fx %14zu\n", labels[k], best[k], best[0] / best[k], differ[k]);
  std::printf("LLVM exact left %zu names (%.1f%%) to libiberty\n", fallbacks,
              100.0 * fallbacks / std::max<std::size_t>(1, names.size()));
  return differ[2] == 0 ? 0 : 1;
}
