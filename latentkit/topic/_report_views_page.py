"""The topic report's metadata sections (HTML, CSS and JavaScript, inline): "Topics over time"
for a model with time slices and "Topics by label" for labelled documents. They read the same
JSON as the page (``over_time`` and ``by_label`` of :func:`latentkit.topic.report_data`), follow
the topic selected on the map (the ``topicselect`` event) and select topics on it
(``window.latentkitSelectTopic``). Without those keys the sections stay hidden.
"""

__all__ = ["VIEWS"]

VIEWS = r"""<style>
#views h2{font-size:17px;margin:22px 0 6px}
#views svg{display:block;width:100%;max-width:900px;height:auto;border:1px solid #ccc;
 background:#fafafa}
#views svg text{font-size:12px;fill:#444}
polyline.share{fill:none;stroke:#8fb3d9;stroke-width:1.5;cursor:pointer}
polyline.share.selected{stroke:#d9534f;stroke-width:3.5}
polyline.trajectory{fill:none;stroke:#d9534f;stroke-width:2.5}
#views line.grid{stroke:#ddd}
#ot-controls{font-size:14px;margin:8px 0;display:flex;gap:8px 24px;flex-wrap:wrap}
#slice-words{font-size:13px;margin:4px 0 10px;min-height:18px}
#slice-words .word{cursor:pointer;margin-right:8px;border-bottom:1px dotted #888}
#slice-words .word.current{color:#d9534f;font-weight:bold}
table.by-label{border-collapse:collapse;font-size:12px;margin-top:6px}
table.by-label th,table.by-label td{border:1px solid #ddd;padding:2px 5px}
table.by-label th{background:#f3f3f3;font-weight:normal}
td.share-cell{text-align:right;cursor:pointer;min-width:34px}
td.share-cell.selected{outline:2px solid #d9534f}
td.top-topics{max-width:420px}
</style>
<div id="views">
<section id="over-time" hidden>
 <h2>Topics over time</h2>
 <p class="note" id="ot-info"></p>
 <svg id="share-chart" viewBox="0 0 900 280" role="img"
  aria-label="each topic's share of the documents by time slice"></svg>
 <div id="ot-controls">
  <label>slice <input id="slice" type="range" min="0" step="1" value="0">
   <span id="slice-label"></span></label>
  <label>word <select id="trajectory-word"></select></label>
 </div>
 <div id="slice-words"></div>
 <svg id="trajectory-chart" viewBox="0 0 900 220" role="img"
  aria-label="the probability of a word in the selected topic by time slice"></svg>
</section>
<section id="by-label" hidden>
 <h2>Topics by label</h2>
 <p class="note" id="bl-info"></p>
 <table class="by-label" id="label-table"></table>
</section>
</div>
<script>
(function(){
"use strict";
var DATA = JSON.parse(document.getElementById("report-data").textContent);
var NS = "http://www.w3.org/2000/svg", K = DATA.topics.length, cur = null;
function el(tag, attrs, parent){
  var e = document.createElementNS(NS, tag);
  for (var k in attrs) e.setAttribute(k, attrs[k]);
  parent.appendChild(e);
  return e;
}
function niceStep(x){
  var p = Math.pow(10, Math.floor(Math.log10(x))), m = x / p;
  return (m >= 5 ? 5 : m >= 2 ? 2 : 1) * p;
}
function fmt(v, step, percent){
  var d = Math.max(0, -Math.floor(Math.log10((percent ? 100 : 1) * step) + 1e-9));
  return percent ? (100 * v).toFixed(d) + "%" : v.toFixed(d);
}
// a line chart frame: y from 0 to a nice top above ymax, x at the slices; returns (x, y)
function frame(svg, labels, ymax, ycaption, percent){
  svg.innerHTML = "";
  var W = 900, H = +svg.getAttribute("viewBox").split(" ")[3], L = 70, R = 20, Tp = 14,
      B = 46, n = labels.length;
  var step = niceStep(Math.max(ymax, 1e-12) / 4), top = Math.ceil(ymax / step - 1e-9) * step;
  top = top > 0 ? top : step;
  function x(i){ return L + (n > 1 ? i / (n - 1) : 0.5) * (W - L - R); }
  function y(v){ return H - B - v / top * (H - B - Tp); }
  for (var v = 0; v <= top + step / 2; v += step) {
    el("line", {"class": "grid", x1: L, x2: W - R, y1: y(v), y2: y(v)}, svg);
    el("text", {x: L - 6, y: y(v) + 4, "text-anchor": "end", "class": "ytick"}, svg)
      .textContent = fmt(v, step, percent);
  }
  var every = Math.max(1, Math.ceil(n / 14));
  labels.forEach(function(lab, i){
    if (i % every && !(i === n - 1 && (n - 1) % every >= every / 2)) return;
    el("text", {x: x(i), y: H - B + 16, "text-anchor": "middle", "class": "xtick"}, svg)
      .textContent = lab;
  });
  var c = el("text", {x: 14, y: (H - B) / 2, "text-anchor": "middle",
                      transform: "rotate(-90 14 " + (H - B) / 2 + ")"}, svg);
  c.textContent = ycaption;
  el("text", {x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle"}, svg).textContent =
    "time slice";
  return {x: x, y: y};
}
function points(values, f){
  return values.map(function(v, i){ return v === null ? null : f.x(i) + "," + f.y(v); })
    .filter(function(p){ return p !== null; }).join(" ");
}

// ---------------------------------------------------------------------------- over time
var O = DATA.over_time;
if (O) {
  document.getElementById("over-time").hidden = false;
  var S = O.slices, chart = document.getElementById("share-chart");
  var slider = document.getElementById("slice"), pick = document.getElementById("trajectory-word");
  slider.max = S.length - 1; slider.value = S.length - 1;
  document.getElementById("ot-info").textContent = (O.prevalence ?
    "Each topic's share of the documents of every slice: the mean of the documents' topic " +
    "proportions over the slice (" + S.length + " slices, " + O.n_docs.reduce(function(a, b){
      return a + b; }, 0) + " documents). " :
    "No corpus given: the shares by slice need the documents and their times. ") +
    "Select a topic (on the map or on its line) for its top words at the chosen slice and a " +
    "word's probability in the topic over time, p(w | topic, slice).";
  var f = null;
  if (O.prevalence) {
    var ymax = 0;
    O.prevalence.forEach(function(row){ row.forEach(function(v){
      if (v !== null && v > ymax) ymax = v; }); });
    f = frame(chart, S, ymax, "share of the documents", true);
    for (var k = 0; k < K; k++) (function(k){
      var vals = O.prevalence.map(function(row){ return row[k]; });
      var line = el("polyline", {id: "share-" + k, "class": "share", "data-topic": k,
                                 points: points(vals, f)}, chart);
      el("title", {}, line).textContent = "topic " + k + ": " + DATA.topics[k].label;
      line.addEventListener("click", function(){ window.latentkitSelectTopic(k); });
    })(k);
  } else {
    chart.style.display = "none";
  }
  function drawWords(){
    var t = +slider.value, box = document.getElementById("slice-words");
    document.getElementById("slice-label").textContent = S[t];
    box.innerHTML = "";
    if (cur === null) { box.textContent = "No topic selected."; return; }
    var lead = document.createElement("span");
    lead.textContent = "Topic " + cur + " at " + S[t] + (O.prevalence &&
      O.prevalence[t][cur] !== null ? " (" + (100 * O.prevalence[t][cur]).toFixed(1) +
      "% of the slice's documents)" : "") + ": ";
    box.appendChild(lead);
    O.top_words[cur][t].forEach(function(w){
      var s = document.createElement("span");
      s.className = "word" + (w === pick.value ? " current" : ""); s.textContent = w;
      s.setAttribute("data-word", w);
      s.addEventListener("click", function(){ pick.value = w; drawTrajectory(); drawWords(); });
      box.appendChild(s);
    });
  }
  function drawTrajectory(){
    var svg = document.getElementById("trajectory-chart");
    if (cur === null) { svg.style.display = "none"; return; }
    svg.style.display = "";
    var tr = O.tracked[cur], i = tr.words.indexOf(pick.value);
    if (i < 0) i = 0;
    var p = tr.p[i], g = frame(svg, S, Math.max.apply(null, p),
                               "p('" + tr.words[i] + "' | topic " + cur + ")", false);
    var line = el("polyline", {id: "trajectory-line", "class": "trajectory",
                               "data-word": tr.words[i], points: points(p, g)}, svg);
    el("title", {}, line).textContent = "'" + tr.words[i] + "' in topic " + cur;
  }
  function onTopic(k){
    cur = k;
    document.querySelectorAll("polyline.share").forEach(function(l){
      l.classList.toggle("selected", +l.getAttribute("data-topic") === k); });
    var sel = document.querySelector("polyline.share.selected");
    if (sel) sel.parentNode.appendChild(sel);  // drawn last, on top
    pick.innerHTML = "";
    if (k !== null) O.tracked[k].words.forEach(function(w){
      var o = document.createElement("option"); o.value = w; o.textContent = w;
      pick.appendChild(o);
    });
    drawTrajectory(); drawWords();
  }
  slider.addEventListener("input", drawWords); slider.addEventListener("change", drawWords);
  pick.addEventListener("change", function(){ drawTrajectory(); drawWords(); });
  document.addEventListener("topicselect", function(ev){ onTopic(ev.detail); });
  onTopic(null);
}

// ---------------------------------------------------------------------------- by label
var B = DATA.by_label;
if (B) {
  document.getElementById("by-label").hidden = false;
  var names = B.topic_names || DATA.topics.map(function(t){ return "topic " + t.id; });
  document.getElementById("bl-info").textContent = "Rows: labels (a document counts under " +
    "each of its labels). Cells: the mean topic proportion of the label's documents (darker: " +
    "larger); click a cell to select its topic on the map. Last column: the label's three " +
    "largest topics with their top words.";
  var table = document.getElementById("label-table"), head = table.insertRow();
  ["label", "documents"].concat(names, ["top topics"]).forEach(function(h){
    var th = document.createElement("th"); th.textContent = h; head.appendChild(th); });
  B.labels.forEach(function(lab, l){
    var row = table.insertRow();
    row.setAttribute("data-label", lab);
    row.insertCell().textContent = lab;
    row.insertCell().textContent = B.n_docs[l];
    for (var k = 0; k < K; k++) (function(k){
      var c = row.insertCell(), v = B.shares[l] ? B.shares[l][k] : null;
      c.className = "share-cell"; c.setAttribute("data-topic", k);
      if (v === null) { c.textContent = "-"; return; }
      c.setAttribute("data-value", v);
      c.textContent = (100 * v).toFixed(v < 0.1 ? 1 : 0) + "%";
      c.style.background = "rgba(217,83,79," + Math.min(1, v).toFixed(3) + ")";
      if (v > 0.55) c.style.color = "#fff";
      c.title = lab + ", " + names[k] + ": " + DATA.topics[k].label;
      c.addEventListener("click", function(){ window.latentkitSelectTopic(k); });
    })(k);
    var tops = row.insertCell(); tops.className = "top-topics";
    tops.textContent = B.top_topics[l].map(function(k){
      return names[k] + " (" + (100 * B.shares[l][k]).toFixed(0) + "%): " +
        B.topic_words[k].slice(0, 6).join(" "); }).join("; ");
  });
  document.addEventListener("topicselect", function(ev){
    document.querySelectorAll("td.share-cell").forEach(function(c){
      c.classList.toggle("selected", +c.getAttribute("data-topic") === ev.detail); });
  });
}
})();
</script>"""
