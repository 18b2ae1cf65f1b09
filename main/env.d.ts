/** electron-vite's `?asset` imports: the file is emitted next to the bundle and the import is its absolute path. */
declare module '*?asset' {
  const path: string;
  export default path;
}
