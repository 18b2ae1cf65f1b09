export { briefHandlers, pdfPageCount, pngSize, printDocument, PRINT_CSP, type BriefDeps } from './handlers.js';
