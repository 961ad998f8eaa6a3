// The explorables of the book (entropic.argument.explorables): each live figure is drawn when it first comes near the
// screen. Bokeh's files, served beside the book by entropic.publish.interactive (the version this script's
// data-bokeh names), load then, once per page; a page is read, and its load event fires, without waiting for them.
(() => {
  const script = document.currentScript;
  const base = new URL(`bokeh/${script.dataset.bokeh}/`, script.src);
  let bokeh = null;
  const load = (name) => new Promise((resolve, reject) => {
    const tag = document.createElement("script");
    tag.src = new URL(name, base).href;
    tag.onload = resolve;
    tag.onerror = () => reject(new Error(`${tag.src} did not load`));
    document.head.appendChild(tag);
  });
  const draw = (live) => {
    bokeh ??= load("bokeh.min.js").then(() => load("bokeh-widgets.min.js"));
    const item = JSON.parse(live.querySelector("script.explorable-item").textContent);
    bokeh.then(() => Bokeh.embed.embed_item(item, live.querySelector(".explorable-target")));
  };
  const start = () => {
    const figures = document.querySelectorAll(".explorable-live");  // in print they are hidden: never drawn
    if (!("IntersectionObserver" in window)) {
      figures.forEach(draw);
      return;
    }
    const near = new IntersectionObserver((entries) => entries.filter((entry) => entry.isIntersecting).forEach(
      (entry) => { near.unobserve(entry.target); draw(entry.target); }), {rootMargin: "50% 0px"});
    figures.forEach((figure) => near.observe(figure));
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
