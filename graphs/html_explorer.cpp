#include "graphs/html_explorer.h"

#include "graphs/json_writer.h"

namespace glassbox::graphs {
namespace {

std::string html_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// JSON inside <script>: "</" would end the element early.
std::string script_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') out += '\\';
  }
  return out;
}

constexpr std::string_view kStyle = R"(
html, body { margin: 0; height: 100%; font: 13px Helvetica, Arial, sans-serif; }
body { display: flex; flex-direction: column; }
header { display: flex; gap: 12px; align-items: center; padding: 6px 10px; border-bottom: 1px solid #ccc; }
header h1 { font-size: 14px; margin: 0; font-weight: normal; }
#search { width: 260px; padding: 3px 6px; }
#hits { color: #666; }
main { flex: 1; display: flex; min-height: 0; }
#view { flex: 1; overflow: hidden; cursor: grab; background: #fff; }
#view svg { width: 100%; height: 100%; }
#panel { width: 380px; overflow: auto; border-left: 1px solid #ccc; padding: 8px 10px; }
#panel table { border-collapse: collapse; width: 100%; }
#panel td, #panel th { text-align: left; padding: 1px 4px; border-bottom: 1px solid #eee; vertical-align: top; }
#panel td { word-break: break-all; }
#panel td.n { text-align: right; white-space: nowrap; word-break: normal; }
g.node.hit polygon, g.node.hit path, g.node.hit ellipse { stroke: #d00; stroke-width: 3px; }
g.node.dim, g.edge.dim { opacity: 0.25; }
g.node { cursor: pointer; }
g.node.selected polygon, g.node.selected path { stroke: #d00; stroke-width: 3px; }
)";

constexpr std::string_view kScript = R"(
(function () {
  const data = JSON.parse(document.getElementById('details').textContent);
  const byId = new Map(data.nodes.map(n => [n.id, n]));
  const out = new Map();
  for (const e of data.edges) { if (!out.has(e.from)) out.set(e.from, []); out.get(e.from).push(e); }
  const svg = document.querySelector('#view svg');
  const nodes = Array.from(svg.querySelectorAll('g.node'));
  const idOf = g => { const t = g.querySelector('title'); return t ? t.textContent : ''; };
  svg.removeAttribute('width'); svg.removeAttribute('height');
  let vb = svg.viewBox.baseVal ? [svg.viewBox.baseVal.x, svg.viewBox.baseVal.y, svg.viewBox.baseVal.width, svg.viewBox.baseVal.height] : [0, 0, 1000, 1000];
  const whole = vb.slice();
  const apply = () => svg.setAttribute('viewBox', vb.join(' '));
  const toSvg = (cx, cy) => { const r = svg.getBoundingClientRect(); const s = Math.max(vb[2] / r.width, vb[3] / r.height);
    return [vb[0] + (cx - r.left) * s, vb[1] + (cy - r.top) * s, s]; };
  const zoom = (f, cx, cy) => { const [x, y] = toSvg(cx, cy); vb = [x - (x - vb[0]) * f, y - (y - vb[1]) * f, vb[2] * f, vb[3] * f]; apply(); };
  const view = document.getElementById('view');
  view.addEventListener('wheel', ev => { ev.preventDefault(); zoom(ev.deltaY > 0 ? 1.15 : 1 / 1.15, ev.clientX, ev.clientY); }, {passive: false});
  let drag = null;
  view.addEventListener('mousedown', ev => { drag = [ev.clientX, ev.clientY]; view.style.cursor = 'grabbing'; });
  window.addEventListener('mouseup', () => { drag = null; view.style.cursor = 'grab'; });
  window.addEventListener('mousemove', ev => { if (!drag) return; const [, , s] = toSvg(0, 0);
    vb[0] -= (ev.clientX - drag[0]) * s; vb[1] -= (ev.clientY - drag[1]) * s; drag = [ev.clientX, ev.clientY]; apply(); });
  window.addEventListener('keydown', ev => { if (ev.target.tagName === 'INPUT') return; const r = view.getBoundingClientRect();
    if (ev.key === '+' || ev.key === '=') zoom(1 / 1.25, r.left + r.width / 2, r.top + r.height / 2);
    if (ev.key === '-') zoom(1.25, r.left + r.width / 2, r.top + r.height / 2);
    if (ev.key === '0') { vb = whole.slice(); apply(); } });
  const centreOn = g => { const b = g.getBBox(); const m = g.getCTM(); const root = svg.getCTM();
    const rel = root && m ? root.inverse().multiply(m) : null; const cx = (rel ? rel.e : 0) + b.x + b.width / 2, cy = (rel ? rel.f : 0) + b.y + b.height / 2;
    vb = [cx - vb[2] / 2, cy - vb[3] / 2, vb[2], vb[3]]; apply(); };

  const fmtMs = ms => ms < 1000 ? ms + ' ms' : ms < 60000 ? (ms / 1000).toFixed(1) + ' s' : Math.floor(ms / 60000) + ' min ' + String(Math.floor(ms / 1000) % 60).padStart(2, '0') + ' s';
  const fmtSize = b => b < 1024 ? b + ' B' : b < 1048576 ? (b / 1024).toFixed(1) + ' KiB' : (b / 1048576).toFixed(1) + ' MiB';
  const esc = s => String(s).replace(/[&<>"]/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]));
  const panel = document.getElementById('panel');
  function select(id) {
    for (const g of nodes) g.classList.toggle('selected', idOf(g) === id);
    const key = id.startsWith('files:') ? id.slice(6) : id;
    const n = byId.get(key);
    if (!n) { panel.innerHTML = '<p>' + esc(id) + '</p><p>(no details)</p>'; return; }
    const a = n.attributes || {};
    let html = '<h3>' + esc(a.name || n.id) + '</h3><p>' + esc(n.label || n.id) + '<br>' + esc(n.kind) + (a.type ? ' (' + esc(a.type) + ')' : '') + '</p>';
    if (a.size) html += '<p>size ' + fmtSize(+a.size) + '</p>';
    if (a.compile_ms) html += '<p>compile ' + fmtMs(+a.compile_ms) + ' (summed)</p>';
    if (a.file) html += '<p>defined at ' + esc(a.file) + ':' + esc(a.line || '') + '</p>';
    const edges = out.get(n.id) || [];
    const files = edges.filter(e => e.kind === 'compiles').map(e => byId.get(e.to)).filter(Boolean);
    files.sort((x, y) => (+((y.attributes || {}).compile_ms || 0)) - (+((x.attributes || {}).compile_ms || 0)));
    if (files.length) {
      html += '<h4>' + files.length + ' sources</h4><table id="sources"><tr><th>file</th><th>compile</th><th>size</th></tr>';
      for (const f of files) { const fa = f.attributes || {};
        html += '<tr><td>' + esc(f.label || f.id) + '</td><td class="n">' + (fa.compile_ms ? fmtMs(+fa.compile_ms) : '') + '</td><td class="n">' + (fa.size ? fmtSize(+fa.size) : '') + '</td></tr>'; }
      html += '</table>';
    }
    const links = edges.filter(e => e.kind === 'links').map(e => byId.get(e.to)).filter(Boolean);
    if (links.length) html += '<h4>links</h4><ul>' + links.map(l => '<li>' + esc(l.label || l.id) + '</li>').join('') + '</ul>';
    panel.innerHTML = html;
  }
  for (const g of nodes) g.addEventListener('click', ev => { ev.stopPropagation(); select(idOf(g)); });
  const search = document.getElementById('search'), hits = document.getElementById('hits');
  function find(q) {
    q = q.trim().toLowerCase();
    let found = [];
    for (const g of nodes) { const text = (idOf(g) + ' ' + g.textContent).toLowerCase(); const hit = q !== '' && text.includes(q);
      g.classList.toggle('hit', hit); g.classList.toggle('dim', q !== '' && !hit); if (hit) found.push(g); }
    hits.textContent = q ? found.length + ' found' : '';
    return found;
  }
  search.addEventListener('input', () => find(search.value));
  search.addEventListener('keydown', ev => { if (ev.key === 'Enter') { const f = find(search.value); if (f.length) { centreOn(f[0]); select(idOf(f[0])); } } });
  const m = /#select=(.*)$/.exec(location.hash);
  if (m) select(decodeURIComponent(m[1]));
  document.body.dataset.ready = String(nodes.length);
})();
)";

}  // namespace

std::string html_explorer(std::string_view svg, const Graph& details, const HtmlExplorerOptions& options) {
  const std::size_t start = svg.find("<svg");
  if (start != std::string_view::npos) svg.remove_prefix(start);
  std::string html;
  html.reserve(svg.size() + 4096);
  html += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>";
  html += html_escape(options.title);
  html += "</title>\n<style>";
  html += kStyle;
  html += "</style>\n</head>\n<body>\n<header><h1>";
  html += html_escape(options.title);
  html +=
      "</h1><input id=\"search\" type=\"search\" placeholder=\"search (Enter: go to the first)\">"
      "<span id=\"hits\"></span><span style=\"color:#888\">drag to pan, wheel or +/- to zoom, 0 to reset, "
      "click a box for details</span></header>\n<main><div id=\"view\">\n";
  html += svg;
  html +=
      "\n</div><aside id=\"panel\"><p>Click a target for its sources, compile times and sizes.</p></aside></main>\n";
  html += "<script type=\"application/json\" id=\"details\">";
  html += script_safe(to_json(details, JsonOptions{false}));
  html += "</script>\n<script>";
  html += kScript;
  html += "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace glassbox::graphs
