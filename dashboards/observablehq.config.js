// Observable Framework configuration of the tracestreamer dashboards
// (scripts/dashboards/run.sh builds them; README "Dashboards").
export default {
  title: "tracestreamer",
  root: "src",
  pages: [
    {name: "ArkTS heap", path: "/heap"},
    {name: "CPU profile", path: "/cpu"},
    {name: "Trace Event", path: "/trace"},
    {name: "Many traces (Parquet)", path: "/traces"}
  ],
  // Everything the pages need is bundled from node_modules: nothing is
  // fetched from a CDN at build time or in the browser.
  head: "",
  globalStylesheets: [], // the default theme's web font comes from Google
  footer: "Built from tracestreamer databases with Observable Framework.",
  search: false,
  toc: false
};
