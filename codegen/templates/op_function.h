
// ${location}
inline ${ret} ${name}(${params}) {
  return ops::${struct}::call(${args});
}
