export { briefHandlers, pageSizeMm, pdfPageCount, pngSize, printDocument, PRINT_CSP, type BriefDeps } from './handlers.js';
