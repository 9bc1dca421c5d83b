#pragma once
// A small streaming JSON writer (the core writes JSON without depending on a JSON library, so it
// builds anywhere). Commas and escaping are handled; nesting is the caller's to balance.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace glassbox {

class JsonWriter {
 public:
  explicit JsonWriter(int indent = 2) : indent_(indent) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(int64_t i);
  JsonWriter& value(int i) { return value(static_cast<int64_t>(i)); }
  JsonWriter& value(bool b);
  JsonWriter& value(double d);  // shortest text that reads back the same; non-finite as null
  JsonWriter& null();
  // key(k).value(v) in one call.
  template <class T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }

  const std::string& str() const { return out_; }
  static std::string quote(std::string_view s);

 private:
  void before_value();
  void newline();

  std::string out_;
  int indent_;
  std::vector<bool> has_items_;  // per open container
  bool after_key_ = false;
};

}  // namespace glassbox
