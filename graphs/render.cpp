// The parts of rendering that do not touch Graphviz: formats, engine choice, files.
#include "graphs/render.h"

#include <algorithm>
#include <cctype>
#include <fstream>

#include "engine/core/error.h"

namespace glassbox::graphs {

std::string_view to_string(ImageFormat format) { return format == ImageFormat::Png ? "png" : "svg"; }

std::optional<ImageFormat> image_format_for(const std::filesystem::path& file) {
  std::string extension = file.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".svg") return ImageFormat::Svg;
  if (extension == ".png") return ImageFormat::Png;
  return std::nullopt;
}

std::string choose_engine(std::size_t node_count, const RenderOptions& options) {
  if (!options.engine.empty()) return options.engine;
  return node_count >= options.sfdp_threshold ? "sfdp" : "dot";
}

std::string render(const Graph& graph, const RenderOptions& options, const DotOptions& dot_options) {
  RenderOptions chosen = options;
  chosen.engine = choose_engine(graph.node_count(), options);
  return render(to_dot(graph, dot_options), chosen);
}

void render_to_file(std::string_view dot_text, const std::filesystem::path& file, RenderOptions options) {
  if (auto format = image_format_for(file)) options.format = *format;
  std::string image = render(dot_text, options);
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  GB_CHECK(out, "cannot open '", file.string(), "' to write the ", to_string(options.format), " image");
  out.write(image.data(), static_cast<std::streamsize>(image.size()));
  out.close();
  GB_CHECK(out, "writing the ", to_string(options.format), " image to '", file.string(), "' failed");
}

void render_to_file(const Graph& graph, const std::filesystem::path& file, RenderOptions options,
                    const DotOptions& dot_options) {
  options.engine = choose_engine(graph.node_count(), options);
  render_to_file(to_dot(graph, dot_options), file, options);
}

}  // namespace glassbox::graphs
