// Rendering when glassbox was configured without Graphviz's libgvc.
#include "engine/core/error.h"
#include "graphs/render.h"

namespace glassbox::graphs {

bool rendering_available() { return false; }
std::string graphviz_version() { return {}; }

std::string render(std::string_view, const RenderOptions& options) {
  throw Error(
      detail::str_cat("cannot render ", to_string(options.format),
                      ": glassbox was built without Graphviz support (libgvc was not found when configuring; install "
                      "libgraphviz-dev and re-run cmake). Write DOT instead and run `dot -T",
                      to_string(options.format), "` on it."));
}

}  // namespace glassbox::graphs
