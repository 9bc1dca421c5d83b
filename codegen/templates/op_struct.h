
// ${location}
struct ${struct} {
  using schema = ${function_type};
  static constexpr const char* name = "${qualified_name}";
  static constexpr const char* overload_name = "${overload}";
  static constexpr const char* schema_str = ${schema_literal};
  static ${ret} call(${params});
  static ${ret} redispatch(${redispatch_params});
};
