// Builds board.html and its script into ONE self-contained page, dist/board.html: the notes
// example serves it as the ui://notes/board resource (include_str!), so it is committed.
import { defineConfig } from "vite";
import { viteSingleFile } from "vite-plugin-singlefile";

export default defineConfig({
  root: import.meta.dirname,
  logLevel: "warn",
  plugins: [viteSingleFile()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022", // the module script uses top-level await
    reportCompressedSize: false,
    rollupOptions: { input: "board.html" },
  },
});
