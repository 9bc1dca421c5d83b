
namespace glassbox {
${functions}
}  // namespace glassbox
