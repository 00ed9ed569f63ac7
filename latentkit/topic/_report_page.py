"""The topic report's page: one HTML file with inline CSS and JavaScript and no network access.

``__TITLE__``, ``__DATA__`` (the JSON of :func:`latentkit.topic.report_data`) and ``__VIEWS__``
(the over-time and per-label sections, :mod:`latentkit.topic._report_views_page`) are filled in
by :func:`latentkit.topic.topic_report`. The layout is responsive: the map and the word panel
sit side by side on wide screens and one above the other below about 780 px; the map is an SVG
with a viewBox, so it scales to its column instead of being cropped.
"""

__all__ = ["PAGE"]

PAGE = r"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:12px;color:#222}
h1{font-size:20px;margin:0 0 8px}
#controls{margin:8px 0 12px;display:flex;gap:8px 24px;align-items:center;flex-wrap:wrap;
 font-size:14px}
#main{display:flex;flex-wrap:wrap;gap:20px;align-items:flex-start}
#mapbox{flex:1 1 360px;min-width:0;
 max-width:max(300px, min(560px, calc((100vh - 130px) * 0.8)))}
#map{display:block;width:100%;height:auto;border:1px solid #ccc;background:#fafafa}
#legend{display:block;width:100%;height:auto}
circle.topic{fill:#8fb3d9;fill-opacity:.6;stroke:#3b6ea5;stroke-width:1;cursor:pointer}
circle.topic.selected{fill:#d9534f;fill-opacity:.75;stroke:#a02b27}
circle.topic.highlight{stroke:#f0a30a;stroke-width:4}
text.tlabel{font-size:15px;pointer-events:none;text-anchor:middle}
#legend circle{fill:none;stroke:#777}
#legend text{font-size:17px;fill:#444}
#panel{flex:1 1 380px;max-width:720px;min-width:0}
#info{font-size:14px;margin:0 0 8px}
.bar-row{display:flex;align-items:center;height:18px;font-size:12px}
.bar-row .w{flex:0 0 110px;text-align:right;padding-right:6px;overflow:hidden;
 white-space:nowrap;text-overflow:ellipsis}
.track{position:relative;flex:1 1 auto;height:13px;margin-right:18px}
.track .all{position:absolute;height:13px;background:#c9d8e8}
.track .top{position:absolute;height:13px;background:#d9534f}
#axis{height:36px;align-items:flex-start;font-size:11px;color:#444}
#axis .track{border-top:1px solid #888;height:36px}
#axis .caption{position:absolute;top:17px;left:0;right:0;text-align:center}
#axis .tick{position:absolute;top:0;transform:translateX(-50%);padding-top:2px}
#axis .tick::before{content:"";position:absolute;left:50%;top:-1px;height:4px;
 border-left:1px solid #888}
#docs-head{font-size:14px;margin:14px 0 4px}
#docs{padding-left:22px;margin:0}
#docs li{font-size:12px;margin:2px 0;overflow-wrap:anywhere}
#docs .share{display:inline-block;height:9px;background:#d9534f;margin-right:6px;
 vertical-align:middle}
#found{font-size:13px;margin-left:8px}
button{font-size:13px}
.note{font-size:12px;color:#555;max-width:1100px}
</style></head><body>
<h1>__TITLE__</h1>
<div id="controls">
 <span>Selected topic: <span id="selected">none</span></span>
 <label>relevance &lambda; = <span id="lambda-value">1.00</span>
  <input id="lambda" type="range" min="0" max="1" step="0.01" value="1"></label>
 <form id="search-form"><input id="search" type="search" placeholder="find a word">
  <button type="submit" id="search-button">Search</button>
  <button type="button" id="reset">Reset</button><span id="found"></span></form>
</div>
<div id="main">
 <div id="mapbox">
  <svg id="map" viewBox="0 0 520 520" role="img" aria-label="inter-topic distance map"></svg>
  <svg id="legend" viewBox="0 0 520 124" role="img" aria-label="circle size legend"></svg>
 </div>
 <div id="panel"><div id="info"></div>
  <div id="bars"></div>
  <h3 id="docs-head"></h3><ol id="docs"></ol>
 </div>
</div>
<p class="note">Map: classical multidimensional scaling of the Jensen-Shannon distances between
topics; circle area proportional to topic prevalence (share of all tokens), or, after a word
search, to the share of that word's tokens in each topic, p(t|w). Bars: blue the word's share of
all tokens p(w), red the share in the selected topic p(w|t) p(t); words ranked by relevance
&lambda; log p(w|t) + (1 - &lambda;) log(p(w|t) / p(w)) (Sievert &amp; Shirley 2014). Before a
topic is selected: the most salient words, p(w) times the Kullback-Leibler divergence of p(t|w)
from p(t) (Chuang, Manning &amp; Heer 2012). Click the map's background or Reset to go back.</p>
<script id="report-data" type="application/json">__DATA__</script>
<script>
(function(){
"use strict";
var DATA = JSON.parse(document.getElementById("report-data").textContent);
var NS = "http://www.w3.org/2000/svg", svg = document.getElementById("map");
var legend = document.getElementById("legend");
var state = {topic: null, lambda: 1, word: null};
var T = DATA.topics, size = 520, rMax = 46, rMin = 3, pad = rMax + 8;
var xs = T.map(function(t){return t.x;}), ys = T.map(function(t){return t.y;});
var span = Math.max(Math.max.apply(null, xs) - Math.min.apply(null, xs),
                    Math.max.apply(null, ys) - Math.min.apply(null, ys), 1e-12);
var cx = (Math.max.apply(null, xs) + Math.min.apply(null, xs)) / 2;
var cy = (Math.max.apply(null, ys) + Math.min.apply(null, ys)) / 2;
var maxPrev = Math.max.apply(null, T.map(function(t){return t.prevalence;}));
function px(v, c){ return size / 2 + (v - c) / span * (size - 2 * pad); }
function el(tag, attrs, parent){
  var e = document.createElementNS(NS, tag);
  for (var k in attrs) e.setAttribute(k, attrs[k]);
  parent.appendChild(e);
  return e;
}
// circle area proportional to value / top (top drawn with radius rMax)
function radius(value, top){ return Math.max(rMin, rMax * Math.sqrt(value / top)); }
function niceStep(x){
  var p = Math.pow(10, Math.floor(Math.log10(x))), m = x / p;
  return (m >= 5 ? 5 : m >= 2 ? 2 : 1) * p;
}
function pct(v, step){
  var d = Math.max(0, -Math.floor(Math.log10(100 * step) + 1e-9));
  return (100 * v).toFixed(d) + "%";
}
function drawLegend(top, caption){
  legend.innerHTML = "";
  var vals = [niceStep(top)];
  while (vals.length < 3) vals.push(niceStep(vals[vals.length - 1] / 3));
  var bottom = 2 * rMax + 4, x = 6;
  vals.forEach(function(v){
    var r = rMax * Math.sqrt(v / top), w = Math.max(2 * r, 48);
    el("circle", {cx: x + w / 2, cy: bottom - r, r: r, "data-value": v}, legend);
    el("text", {x: x + w / 2, y: bottom + 20, "text-anchor": "middle"}, legend)
      .textContent = pct(v, vals[vals.length - 1]);
    x += w + 18;
  });
  var t = el("text", {x: x + 8, y: bottom / 2}, legend);
  caption.forEach(function(line, i){
    el("tspan", {x: x + 8, dy: i ? 22 : 0}, t).textContent = line;
  });
}
// larger circles first, so that a small topic is never hidden under a large one
T.slice().sort(function(a, b){ return b.prevalence - a.prevalence; }).forEach(function(t){
  var c = el("circle", {id: "topic-" + t.id, "class": "topic", "data-topic": t.id,
                        cx: px(t.x, cx), cy: px(-t.y, -cy)}, svg);
  el("title", {}, c);
  c.addEventListener("click", function(ev){ ev.stopPropagation(); select(t.id); });
});
T.forEach(function(t){  // the numbers over all circles
  el("text", {"class": "tlabel", x: px(t.x, cx), y: px(-t.y, -cy) + 5}, svg).textContent =
    t.id + (t.seeded ? "*" : "");  // * marks a seeded topic
});
svg.addEventListener("click", function(){ select(null); });
function sizeCircles(){
  var hits = state.word === null ? null : DATA.search[state.word];
  T.forEach(function(t){
    var c = document.getElementById("topic-" + t.id);
    var v = hits ? hits[t.id] : t.prevalence;
    c.setAttribute("r", radius(v, hits ? 1 : maxPrev));
    c.firstChild.textContent = "topic " + t.id + (t.seeded ? " (seeded)" : "") + ": " +
      t.label + (hits ?
      " (" + pct(v, 0.001) + " of '" + state.word + "')" : " (" + pct(v, 0.001) + " of tokens)");
  });
  if (hits) drawLegend(1, ["circle area: share of the word", "'" + state.word + "' in each topic"]);
  else drawLegend(maxPrev, ["circle area: topic prevalence", "(share of all tokens)"]);
}
function ranked(t, lam){
  var idx = t.words.map(function(_, i){ return i; });
  var rel = t.words.map(function(_, i){ return lam * t.logp[i] + (1 - lam) * t.loglift[i]; });
  idx.sort(function(a, b){ return (rel[b] - rel[a]) || (t.words[a] - t.words[b]); });
  return idx.slice(0, DATA.n_words);
}
function child(cls, parent, text){
  var s = document.createElement("span"); s.className = cls;
  if (text !== undefined) s.textContent = text;
  parent.appendChild(s);
  return s;
}
// rows: [{word, all, part (or null), tip}]; bars and axis share the scale 0..axisMax
function drawBars(rows){
  var bars = document.getElementById("bars");
  bars.innerHTML = "";
  var maxv = Math.max.apply(null, rows.map(function(r){ return Math.max(r.all, r.part || 0); }));
  var step = niceStep(maxv / 4), axisMax = Math.ceil(maxv / step - 1e-9) * step;
  var axis = document.createElement("div"); axis.className = "bar-row"; axis.id = "axis";
  child("w", axis);
  var track = child("track", axis);
  child("caption", track, "share of all tokens");
  for (var v = 0; v <= axisMax + step / 2; v += step) {
    var tick = child("tick", track, pct(v, step));
    tick.style.left = (100 * v / axisMax) + "%";
    tick.setAttribute("data-value", v);
  }
  bars.appendChild(axis);
  bars.setAttribute("data-axis-max", axisMax);
  rows.forEach(function(r){
    var row = document.createElement("div");
    row.className = "bar-row"; row.setAttribute("data-word", r.word);
    child("w", row, r.word).title = r.word;
    var tr = child("track", row);
    var all = child("all", tr); all.style.width = (100 * r.all / axisMax) + "%";
    all.setAttribute("data-value", r.all);
    if (r.part !== null) {
      var top = child("top", tr); top.style.width = (100 * r.part / axisMax) + "%";
      top.setAttribute("data-value", r.part);
    }
    tr.title = r.tip;
    bars.appendChild(row);
  });
}
function render(){
  var docs = document.getElementById("docs"), head = document.getElementById("docs-head");
  var info = document.getElementById("info");
  docs.innerHTML = "";
  if (state.topic === null) {
    var O = DATA.overall;
    info.textContent = "The " + O.words.length + " most salient words of the corpus " +
      "(all " + T.length + " topics" + (DATA.diversity !== null && DATA.diversity !==
      undefined ? "; topic diversity " + DATA.diversity.toFixed(3) : "") +
      "); click a topic for its own words" + (T.some(function(t){ return t.seeded; }) ?
      " (* seeded topic)" : "") + ".";
    head.textContent = "";
    drawBars(O.words.map(function(j, i){
      return {word: DATA.terms[j], all: O.pw[i], part: null,
              tip: "p(w) = " + O.pw[i].toPrecision(3) + ", saliency = " +
                   O.saliency[i].toPrecision(3)};
    }));
    return;
  }
  var t = T[state.topic];
  drawBars(ranked(t, state.lambda).map(function(i){
    return {word: DATA.terms[t.words[i]], all: t.pw[i], part: t.pt[i] * t.prevalence,
            tip: "p(w|t) = " + t.pt[i].toPrecision(3) + ", p(w) = " + t.pw[i].toPrecision(3)};
  }));
  var s = "Topic " + t.id + " \u00b7 prevalence " + (100 * t.prevalence).toFixed(1) +
          "% of tokens";
  if (t.coherence !== null && DATA.measure)
    s += " \u00b7 coherence (" + DATA.measure + ") " + t.coherence.toFixed(3);
  if (t.seeded) s += " \u00b7 seeded: " + t.seeded.join(" ");
  info.textContent = s;
  head.textContent = t.docs.length ? "Most typical documents (the topic's share of each)" : "";
  t.docs.forEach(function(d){
    var li = document.createElement("li");
    li.setAttribute("data-doc", d.doc);
    var bar = child("share", li); bar.style.width = Math.round(40 * d.share) + "px";
    child("pct", li, (100 * d.share).toFixed(0) + "%  ");
    child("title", li, d.title);
    docs.appendChild(li);
  });
}
function select(k){
  state.topic = k;
  document.dispatchEvent(new CustomEvent("topicselect", {detail: k}));  // the views listen
  document.querySelectorAll("circle.topic").forEach(function(c){
    c.classList.toggle("selected", +c.getAttribute("data-topic") === k); });
  document.getElementById("selected").textContent = k === null ? "none" : "topic " + k;
  render();
}
var slider = document.getElementById("lambda");
function onLambda(){
  state.lambda = parseFloat(slider.value);
  document.getElementById("lambda-value").textContent = state.lambda.toFixed(2);
  render();
}
slider.addEventListener("input", onLambda); slider.addEventListener("change", onLambda);
function search(q){
  var key = DATA.search[q] ? q : DATA.search[q.toLowerCase()] ? q.toLowerCase() : null;
  state.word = key;
  var order = [];
  if (key) {
    order = T.map(function(t){ return t.id; }).sort(function(a, b){
      return (DATA.search[key][b] - DATA.search[key][a]) || (a - b); })
      .filter(function(k){ return DATA.search[key][k] > 0; }).slice(0, 3);
  }
  document.querySelectorAll("circle.topic").forEach(function(c){
    c.classList.toggle("highlight", order.indexOf(+c.getAttribute("data-topic")) >= 0); });
  sizeCircles();
  document.getElementById("found").textContent = !q ? "" : key ?
    "'" + key + "': " + order.map(function(k){
      return pct(DATA.search[key][k], 0.01) + " in topic " + k; }).join(", ") +
      " (its tokens' topics, p(t|w))" :
    "'" + q + "' is not in the vocabulary";
}
document.getElementById("search-form").addEventListener("submit", function(ev){
  ev.preventDefault();
  search(document.getElementById("search").value.trim());
});
document.getElementById("reset").addEventListener("click", function(){
  document.getElementById("search").value = "";
  search(""); select(null);
});
window.latentkitSelectTopic = select;  // for the views below (over time, by label)
sizeCircles();
render();
})();
</script>
__VIEWS__
</body></html>
"""
