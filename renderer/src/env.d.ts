// Vite module forms the renderer uses; vue-tsc checks renderer/ with `types: []`, so they are declared here.
// The offline basemap's countries, made by scripts/basemap.ts at build time (see common/basemap-pack.ts).
declare module 'virtual:swath-basemap/*' {
  const data: import('../../common/basemap-pack').PackedBasemap;
  export default data;
}
// The offline context at working zooms, made by scripts/context.ts at build time.
declare module 'virtual:swath-context/water' {
  const data: { lakes: import('../../common/basemap-pack').PackedBasemap; rivers: import('../../common/basemap-pack').PackedBasemap };
  export default data;
}
declare module 'virtual:swath-context/places-*' {
  const data: import('../../common/basemap-pack').PackedPlaces;
  export default data;
}
