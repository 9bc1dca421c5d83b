#pragma once
// Renders DOT text to SVG or PNG through Graphviz's C library (libgvc). Small graphs are laid out
// with `dot`, large ones with `sfdp`. When glassbox was built without Graphviz, rendering_available()
// is false and every render call throws glassbox::Error saying so.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "graphs/dot_writer.h"
#include "graphs/graph.h"

namespace glassbox::graphs {

enum class ImageFormat { Svg, Png };
std::string_view to_string(ImageFormat format);
// From a file name's extension (.svg, .png); nullopt for anything else.
std::optional<ImageFormat> image_format_for(const std::filesystem::path& file);

struct RenderOptions {
  ImageFormat format = ImageFormat::Svg;
  // Graphviz layout engine ("dot", "sfdp", "neato", "fdp", ...); empty: dot below
  // sfdp_threshold nodes, sfdp at or above it.
  std::string engine{};
  std::size_t sfdp_threshold = 300;
  // PNG resolution; 0 keeps Graphviz's default (96).
  double dpi = 0;
};

// The engine used for a graph of `node_count` nodes.
std::string choose_engine(std::size_t node_count, const RenderOptions& options = {});

// True when glassbox was built with Graphviz.
bool rendering_available();
// Graphviz's version ("2.43.0"), or "" without Graphviz.
std::string graphviz_version();

// DOT text -> image bytes. Throws glassbox::Error with Graphviz's own messages when the text does
// not parse, the engine or format is unknown, or layout or rendering fails.
std::string render(std::string_view dot_text, const RenderOptions& options = {});
std::string render(const Graph& graph, const RenderOptions& options = {}, const DotOptions& dot_options = {});

// Renders into a file; the format comes from the file's extension when it has a known one.
void render_to_file(std::string_view dot_text, const std::filesystem::path& file, RenderOptions options = {});
void render_to_file(const Graph& graph, const std::filesystem::path& file, RenderOptions options = {},
                    const DotOptions& dot_options = {});

}  // namespace glassbox::graphs
