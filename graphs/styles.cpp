#include "graphs/styles.h"

#include <array>

namespace glassbox::graphs {
namespace {

// Indexed by NodeKind: build artifacts in blues and greens, files in warm colours, registry
// entities in purples and reds.
constexpr std::array<NodeStyle, kNodeKindCount> kNodeStyles = {{
    /* target           */ {"box", "rounded,filled", "#eeeeee", "#666666", "black"},
    /* library          */ {"box", "filled", "#cfe2f3", "#3d85c6", "black"},
    /* executable       */ {"box", "filled,bold", "#d9ead3", "#38761d", "black"},
    /* object           */ {"box", "filled", "#f3f3f3", "#999999", "#444444"},
    /* source           */ {"note", "filled", "#fff2cc", "#bf9000", "black"},
    /* header           */ {"note", "filled", "#fce5cd", "#b45f06", "black"},
    /* generated_source */ {"note", "filled,dashed", "#fff2cc", "#bf9000", "black"},
    /* directory        */ {"folder", "filled", "#fff2cc", "#bf9000", "black"},
    /* external         */ {"box", "dashed", "white", "#999999", "#666666"},
    /* symbol           */ {"ellipse", "filled", "#ead1dc", "#a64d79", "black"},
    /* operator         */ {"ellipse", "filled", "#d0e0e3", "#45818e", "black"},
    /* dispatch_key     */ {"hexagon", "filled", "#f4cccc", "#cc0000", "black"},
    /* kernel           */ {"component", "filled", "#d9d2e9", "#674ea7", "black"},
    /* autograd_node    */ {"box", "rounded,filled", "#f9cb9c", "#e69138", "black"},
}};

constexpr std::array<EdgeStyle, kEdgeKindCount> kEdgeStyles = {{
    /* links         */ {"solid", "#222222", "normal"},
    /* depends       */ {"dashed", "#666666", "open"},
    /* compiles      */ {"solid", "#3d85c6", "vee"},
    /* includes      */ {"dotted", "#999999", "normal"},
    /* defines       */ {"solid", "#38761d", "diamond"},
    /* registers     */ {"bold", "#674ea7", "normal"},
    /* dispatches_to */ {"solid", "#e69138", "normal"},
    /* backward_of   */ {"dashed", "#cc0000", "inv"},
}};

}  // namespace

const NodeStyle& style_of(NodeKind kind) { return kNodeStyles.at(static_cast<std::size_t>(kind)); }
const EdgeStyle& style_of(EdgeKind kind) { return kEdgeStyles.at(static_cast<std::size_t>(kind)); }

}  // namespace glassbox::graphs
