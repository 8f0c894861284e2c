import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// Nothing for attrmap: its wasm file is found beside the package, in dev and in builds.
export default defineConfig({ plugins: [react()] });
