// The inlined wasm module (wasm/attrmap_inline.js) is base64 text; this turns it into bytes.

/** The bytes of base64 `text`. */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
