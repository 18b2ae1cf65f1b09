// Vite module forms the renderer uses; vue-tsc checks renderer/ with `types: []`, so they are declared here.
// `?raw` keeps the world-atlas TopoJSON out of the type checker and parses it with JSON.parse at run time.
declare module '*?raw' {
  const text: string;
  export default text;
}
