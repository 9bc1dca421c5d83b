
// ${location}
${ret} ${struct}::call(${params}) {
  static const auto op =
      Dispatcher::singleton().find_schema_or_throw("${qualified_name}", "${overload}").typed<${struct}::schema>();
  return op.call(${args});
}

${ret} ${struct}::redispatch(${redispatch_params}) {
  static const auto op =
      Dispatcher::singleton().find_schema_or_throw("${qualified_name}", "${overload}").typed<${struct}::schema>();
  return op.redispatch(${redispatch_args});
}
