// Rendering through Graphviz's C library. Graphviz keeps global state (its error handler, the
// parser), so renders are serialised by one mutex and share one context.
#include <gvc.h>

#include <cstdio>
#include <mutex>
#include <string>

#include "engine/core/error.h"
#include "graphs/render.h"

namespace glassbox::graphs {
namespace {

std::mutex graphviz_mutex;
std::string* captured_messages = nullptr;  // set while a render holds graphviz_mutex

int capture_message(char* message) {
  if (captured_messages) captured_messages->append(message);
  return 0;
}

// Installs the capturing error handler for one render and restores the previous one after.
class MessageCapture {
 public:
  MessageCapture() : previous_(agseterrf(capture_message)) {
    captured_messages = &messages_;
    agreseterrors();
  }
  ~MessageCapture() {
    captured_messages = nullptr;
    agseterrf(previous_);
  }
  MessageCapture(const MessageCapture&) = delete;
  MessageCapture& operator=(const MessageCapture&) = delete;

  // Graphviz's messages on one line each, trimmed, or a note that it gave none.
  std::string text() const {
    std::string out;
    std::size_t start = 0;
    while (start < messages_.size()) {
      std::size_t end = messages_.find('\n', start);
      if (end == std::string::npos) end = messages_.size();
      std::string_view line(messages_.data() + start, end - start);
      if (!line.empty()) {
        out += out.empty() ? "" : "; ";
        out += line;
      }
      start = end + 1;
    }
    return out.empty() ? "Graphviz gave no message" : out;
  }

 private:
  std::string messages_;
  agusererrf previous_;
};

GVC_t* shared_context() {
  // gvContext() loads the plugins listed in Graphviz's config file (Debian:
  // /usr/lib/x86_64-linux-gnu/graphviz/config6a, written by `dot -c`).
  static GVC_t* context = gvContext();
  return context;
}

struct GraphHandle {
  Agraph_t* graph = nullptr;
  GVC_t* context = nullptr;
  bool laid_out = false;
  ~GraphHandle() {
    if (laid_out) gvFreeLayout(context, graph);
    if (graph) agclose(graph);
  }
};

// Sets a graph attribute unless the DOT text already set it (or always, with `overwrite`).
void set_if_unset(Agraph_t* graph, const char* name, std::string value, bool overwrite = false) {
  const char* current = agget(graph, const_cast<char*>(name));
  if (!overwrite && current && *current) return;
  agsafeset(graph, const_cast<char*>(name), value.data(), const_cast<char*>(""));
}

std::string plugin_hint(const std::string& messages) {
  if (messages.find("not recognized") == std::string::npos) return {};
  return " (Graphviz's plugins may not be registered: `dot -c` run as root writes their config file)";
}

}  // namespace

bool rendering_available() { return true; }

std::string graphviz_version() {
  std::lock_guard lock(graphviz_mutex);
  GVC_t* context = shared_context();
  const char* version = context ? gvcVersion(context) : nullptr;
  return version ? version : "";
}

std::string render(std::string_view dot_text, const RenderOptions& options) {
  std::lock_guard lock(graphviz_mutex);
  MessageCapture capture;
  GVC_t* context = shared_context();
  GB_CHECK(context, "Graphviz: could not create a rendering context: ", capture.text());

  std::string text(dot_text);  // agmemread wants a NUL-terminated string
  GraphHandle handle{agmemread(text.c_str()), context};
  GB_CHECK(handle.graph, "Graphviz could not parse the DOT text (", dot_text.size(), " bytes): ", capture.text());

  std::string engine = choose_engine(static_cast<std::size_t>(agnnodes(handle.graph)), options);
  if (options.dpi > 0) set_if_unset(handle.graph, "dpi", std::to_string(options.dpi), true);
  // Force-directed engines otherwise leave nodes overlapping; prism removes overlaps cheaply.
  if (engine != "dot") set_if_unset(handle.graph, "overlap", "prism");
  set_if_unset(handle.graph, "outputorder", "edgesfirst");  // nodes drawn over edges, not under
  if (gvLayout(context, handle.graph, engine.c_str()) != 0) {
    std::string messages = capture.text();
    throw Error(
        detail::str_cat("Graphviz layout with engine '", engine, "' failed: ", messages, plugin_hint(messages)));
  }
  handle.laid_out = true;

  char* data = nullptr;
  unsigned int length = 0;
  std::string_view format = to_string(options.format);
  if (gvRenderData(context, handle.graph, format.data(), &data, &length) != 0 || !data) {
    if (data) gvFreeRenderData(data);
    std::string messages = capture.text();
    throw Error(detail::str_cat("Graphviz could not render ", format, " after the '", engine, "' layout: ", messages,
                                plugin_hint(messages)));
  }
  std::string image(data, length);
  gvFreeRenderData(data);
  return image;
}

}  // namespace glassbox::graphs
