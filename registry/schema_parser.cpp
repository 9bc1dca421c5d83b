// A recursive-descent parser for the schema language:
//   [ns::]name[.overload](Type name[=default], ..., *, kwargs...) -> returns
// Whitespace is free between tokens; an operator name is written without spaces.
#include <charconv>
#include <string>
#include <unordered_map>

#include "registry/function_schema.h"

namespace glassbox {

namespace {

using Kind = DefaultValue::Kind;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

std::optional<BaseType> base_type_named(std::string_view word) {
  for (int i = 0; i <= static_cast<int>(BaseType::Generator); ++i)
    if (to_string(static_cast<BaseType>(i)) == word) return static_cast<BaseType>(i);
  return std::nullopt;
}

std::string_view kind_name(Kind k) {
  switch (k) {
    case Kind::None: return "None";
    case Kind::Bool: return "a bool";
    case Kind::Int: return "an int";
    case Kind::Float: return "a float";
    case Kind::String: return "a string";
    case Kind::List: return "a list";
    case Kind::Identifier: return "an identifier";
  }
  return "?";
}

// Whether a single (non-list) default of kind `k` can stand for a value of type `base`.
bool fits(BaseType base, Kind k) {
  switch (base) {
    case BaseType::Tensor:
    case BaseType::Generator: return false;
    case BaseType::Int:
    case BaseType::SymInt: return k == Kind::Int || k == Kind::Identifier;  // int reduction=Mean
    case BaseType::Float: return k == Kind::Float || k == Kind::Int;
    case BaseType::Bool: return k == Kind::Bool;
    case BaseType::Str: return k == Kind::String;
    case BaseType::Scalar: return k == Kind::Int || k == Kind::Float || k == Kind::Bool;
    case BaseType::ScalarType:
    case BaseType::Layout:
    case BaseType::MemoryFormat: return k == Kind::Identifier || k == Kind::Int;  // name or value
    case BaseType::Device: return k == Kind::Identifier || k == Kind::String;
  }
  return false;
}

// A default value with where it starts, and its elements when it is a list.
struct ParsedValue {
  DefaultValue value;
  size_t pos = 0;
  std::vector<ParsedValue> elements;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  FunctionSchema schema() {
    FunctionSchema s;
    s.name = operator_name();
    arguments(s);
    skip_space();
    if (!consume("->")) fail(pos_, "missing '->' after the arguments, found " + describe());
    returns(s);
    skip_space();
    if (!at_end()) fail(pos_, "trailing characters after the returns: " + describe());
    return s;
  }

  OperatorName name_or_schema() {
    OperatorName name = operator_name();
    skip_space();
    if (at_end()) return name;
    pos_ = 0;
    return schema().name;
  }

 private:
  [[noreturn]] void fail(size_t pos, const std::string& reason) const {
    throw SchemaParseError(reason, std::string(text_), static_cast<int>(pos) + 1);
  }

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  void skip_space() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++pos_;
  }
  bool consume(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  bool consume(std::string_view token) {
    if (!text_.substr(pos_).starts_with(token)) return false;
    pos_ += token.size();
    return true;
  }
  std::string_view identifier() {
    const size_t start = pos_;
    if (!is_ident_start(peek())) return {};
    while (is_ident_char(peek())) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  // What sits at the cursor, for "found ..." in messages.
  std::string describe() const {
    if (at_end()) return "end of input";
    const std::string_view rest = text_.substr(pos_);
    if (rest.starts_with("->")) return "'->'";
    if (rest.starts_with("...")) return "'...'";
    size_t n = 0;
    while (n < rest.size() && is_ident_char(rest[n])) ++n;
    return "'" + std::string(rest.substr(0, n > 0 ? n : 1)) + "'";
  }

  OperatorName operator_name() {
    skip_space();
    OperatorName name;
    std::string_view word = identifier();
    if (word.empty()) fail(pos_, "expected an operator name, found " + describe());
    if (consume("::")) {
      name.ns = word;
      word = identifier();
      if (word.empty()) fail(pos_, "expected an operator name after '::', found " + describe());
    }
    name.name = word;
    if (consume('.')) {
      name.overload = identifier();
      if (name.overload.empty()) fail(pos_, "expected an overload name after '.', found " + describe());
    }
    return name;
  }

  void arguments(FunctionSchema& s) {
    skip_space();
    if (!consume('(')) fail(pos_, "expected '(' after the operator name, found " + describe());
    skip_space();
    if (consume(')')) return;
    std::unordered_map<std::string, size_t> seen;
    size_t star = std::string_view::npos;  // where '*' was, until an argument follows it
    bool kwarg_only = false;
    for (;;) {
      skip_space();
      const bool at_close = peek() == ')' || text_.substr(pos_).starts_with("...");
      if (star != std::string_view::npos && at_close) fail(star, "'*' must be followed by a keyword-only argument");
      if (consume("...")) {
        s.is_vararg = true;
        skip_space();
        if (!consume(')')) fail(pos_, "'...' must be the last argument, found " + describe());
        return;
      }
      if (peek() == '*') {
        if (kwarg_only) fail(pos_, "'*' given twice");
        kwarg_only = true;
        star = pos_++;
        skip_space();
        if (consume(',')) continue;
        if (peek() == ')') fail(star, "'*' must be followed by a keyword-only argument");
        fail(pos_, "expected ',' after '*', found " + describe());
      }
      star = std::string_view::npos;
      Argument arg;
      arg.kwarg_only = kwarg_only;
      type(arg.type, arg.alias, "an argument type");
      skip_space();
      const size_t name_pos = pos_;
      arg.name = identifier();
      if (arg.name.empty()) fail(pos_, "empty argument name: expected a name after the type, found " + describe());
      if (!seen.emplace(arg.name, name_pos).second) fail(name_pos, "duplicate argument name '" + arg.name + "'");
      skip_space();
      if (consume('=')) {
        const ParsedValue v = value();
        check_default(arg.type, v);
        arg.default_value = v.value;
      }
      s.arguments.push_back(std::move(arg));
      skip_space();
      if (consume(',')) continue;
      if (consume(')')) return;
      fail(pos_, "expected ',' or ')' after an argument, found " + describe());
    }
  }

  void returns(FunctionSchema& s) {
    skip_space();
    if (consume("...")) {
      s.is_varret = true;
      return;
    }
    if (!consume('(')) {
      Return r;
      type(r.type, r.alias, "a return type after '->'");
      s.returns.push_back(std::move(r));
      return;
    }
    skip_space();
    if (consume(')')) return;
    std::unordered_map<std::string, size_t> seen;
    for (;;) {
      skip_space();
      if (consume("...")) {
        s.is_varret = true;
        skip_space();
        if (!consume(')')) fail(pos_, "'...' must be the last return, found " + describe());
        return;
      }
      Return r;
      type(r.type, r.alias, "a return type");
      skip_space();
      const size_t name_pos = pos_;
      r.name = identifier();
      if (!r.name.empty() && !seen.emplace(r.name, name_pos).second)
        fail(name_pos, "duplicate return name '" + r.name + "'");
      s.returns.push_back(std::move(r));
      skip_space();
      if (peek() == '=') fail(pos_, "returns cannot have default values");
      if (consume(',')) continue;
      if (consume(')')) return;
      fail(pos_, "expected ',' or ')' after a return, found " + describe());
    }
  }

  // Base type, alias annotation, then the suffixes `?`, `[]`, `[N]`, `?[]`, `[]?`.
  void type(SchemaType& t, std::optional<AliasInfo>& alias, std::string_view what) {
    skip_space();
    const size_t start = pos_;
    const std::string_view word = identifier();
    if (word.empty()) fail(pos_, "expected " + std::string(what) + ", found " + describe());
    const auto base = base_type_named(word);
    if (!base) fail(start, "unknown type '" + std::string(word) + "'");
    t.base = *base;
    skip_space();
    if (peek() == '(') {
      if (t.base != BaseType::Tensor) fail(pos_, "alias annotation on a non-Tensor type '" + std::string(word) + "'");
      alias = alias_info();
    }
    skip_space();
    const bool question = consume('?');
    skip_space();
    if (consume('[')) {
      t.is_list = true;
      t.element_optional = question;
      t.fixed_size = list_size();
      skip_space();
      t.optional = consume('?');
    } else {
      t.optional = question;
    }
    skip_space();
    if (peek() == '[') fail(pos_, "nested list types are not supported");
    if (peek() == '?') fail(pos_, "'?' given twice");
    if (peek() == '(') fail(pos_, "the alias annotation must come right after the base type");
  }

  // After '[': an optional positive size, then ']'.
  std::optional<int64_t> list_size() {
    skip_space();
    std::optional<int64_t> size;
    if (is_digit(peek())) {
      const size_t start = pos_;
      while (is_digit(peek())) ++pos_;
      int64_t n = 0;
      const auto [end, ec] = std::from_chars(text_.data() + start, text_.data() + pos_, n);
      if (ec != std::errc() || n <= 0)
        fail(start,
             "bad list size '" + std::string(text_.substr(start, pos_ - start)) + "': must be a positive integer");
      size = n;
      skip_space();
    }
    if (!consume(']')) {
      if (size) fail(pos_, "expected ']' after the list size, found " + describe());
      fail(pos_, "bad list size: expected a number or ']', found " + describe());
    }
    return size;
  }

  // After the base type: (a), (a!), (a|b), (a -> *), (a! -> a|b).
  AliasInfo alias_info() {
    ++pos_;  // '('
    AliasInfo info;
    info.before_sets = alias_sets();
    info.is_write = consume('!');
    skip_space();
    if (consume("->")) info.after_sets = alias_sets();
    skip_space();
    if (!consume(')')) fail(pos_, "expected ')' to close the alias annotation, found " + describe());
    return info;
  }

  std::vector<std::string> alias_sets() {
    std::vector<std::string> sets;
    do {
      skip_space();
      if (consume('*')) {
        sets.emplace_back("*");
      } else {
        const std::string_view set = identifier();
        if (set.empty()) fail(pos_, "expected an alias set name, found " + describe());
        sets.emplace_back(set);
      }
      skip_space();
    } while (consume('|'));
    return sets;
  }

  ParsedValue value() {
    skip_space();
    ParsedValue v;
    v.pos = pos_;
    const char c = peek();
    if (at_end()) fail(pos_, "expected a default value, found end of input");
    if (c == '"' || c == '\'') {
      size_t end = pos_ + 1;
      while (end < text_.size() && text_[end] != c) end += text_[end] == '\\' ? 2 : 1;
      if (end >= text_.size()) fail(pos_, "unterminated string");
      v.value = {Kind::String, std::string(text_.substr(pos_, end + 1 - pos_))};
      pos_ = end + 1;
    } else if (c == '[') {
      list(v);
    } else if (is_digit(c) || c == '-' || c == '.') {
      v.value = number();
    } else if (is_ident_start(c)) {
      const std::string word(identifier());
      const Kind kind = word == "None"                      ? Kind::None
                        : word == "True" || word == "False" ? Kind::Bool
                        : word == "inf" || word == "nan"    ? Kind::Float
                                                            : Kind::Identifier;
      v.value = {kind, word};
    } else {
      fail(pos_, "expected a default value, found " + describe());
    }
    return v;
  }

  // Canonical list text: "[a, b]" whatever the spacing was.
  void list(ParsedValue& v) {
    ++pos_;  // '['
    v.value.kind = Kind::List;
    skip_space();
    if (!consume(']')) {
      for (;;) {
        ParsedValue e = value();
        if (e.value.kind == Kind::List) fail(e.pos, "nested lists are not supported as default values");
        v.elements.push_back(std::move(e));
        skip_space();
        if (consume(',')) continue;
        if (consume(']')) break;
        fail(pos_, "expected ',' or ']' in the list default, found " + describe());
      }
    }
    v.value.text = "[";
    for (size_t i = 0; i < v.elements.size(); ++i) v.value.text += (i > 0 ? ", " : "") + v.elements[i].value.text;
    v.value.text += "]";
  }

  // -?digits[.digits][e[+-]digits], or -inf / -nan.
  DefaultValue number() {
    const size_t start = pos_;
    consume('-');
    if (const std::string_view w = identifier(); w == "inf" || w == "nan")
      return {Kind::Float, std::string(text_.substr(start, pos_ - start))};
    pos_ = text_[start] == '-' ? start + 1 : start;
    bool is_float = false;
    size_t digits = 0;
    for (; is_digit(peek()); ++pos_) ++digits;
    if (consume('.')) {
      is_float = true;
      for (; is_digit(peek()); ++pos_) ++digits;
    }
    bool bad = digits == 0;
    if (peek() == 'e' || peek() == 'E') {
      is_float = true;
      ++pos_;
      if (!consume('+')) consume('-');
      bad = bad || !is_digit(peek());
      while (is_digit(peek())) ++pos_;
    }
    while (is_ident_char(peek()) || peek() == '.') {
      bad = true;
      ++pos_;
    }
    const std::string text(text_.substr(start, pos_ - start));
    if (bad) fail(start, "invalid number '" + text + "'");
    if (!is_float) {
      int64_t n = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
      if (ec != std::errc()) fail(start, "integer default '" + text + "' is out of range");
    }
    return {is_float ? Kind::Float : Kind::Int, text};
  }

  void check_default(const SchemaType& t, const ParsedValue& v) const {
    const Kind k = v.value.kind;
    if (k == Kind::None) {
      if (!t.optional)
        fail(v.pos, "default value None does not fit type '" + t.to_string() + "' (only optional types take None)");
      return;
    }
    if (t.is_list && k == Kind::List) {
      for (const ParsedValue& e : v.elements)
        if (!(e.value.kind == Kind::None ? t.element_optional : fits(t.base, e.value.kind))) wrong_kind(t, e);
      return;
    }
    // A single value may stand for every element of a list: int[2] stride=1.
    if (k == Kind::List || !fits(t.base, k)) wrong_kind(t, v);
  }

  [[noreturn]] void wrong_kind(const SchemaType& t, const ParsedValue& v) const {
    const std::string kind = v.value.kind == Kind::None ? "" : " (" + std::string(kind_name(v.value.kind)) + ")";
    fail(v.pos, "default value " + v.value.text + kind + " does not fit type '" + t.to_string() + "'");
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

FunctionSchema parse_schema(std::string_view text) { return Parser(text).schema(); }

OperatorName parse_schema_name(std::string_view text) { return Parser(text).name_or_schema(); }

}  // namespace glassbox
