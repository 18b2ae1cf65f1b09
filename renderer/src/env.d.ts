// Vite module forms the renderer uses; vue-tsc checks renderer/ with `types: []`, so they are declared here.
// The offline basemap's countries, made by scripts/basemap.ts at build time (see common/basemap-pack.ts).
declare module 'virtual:swath-basemap/*' {
  const data: import('../../common/basemap-pack').PackedBasemap;
  export default data;
}
