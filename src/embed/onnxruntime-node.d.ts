/**
 * onnxruntime-node 1.16 is published without its type declarations. The module stays opaque
 * here; use-lite-native.ts types the part of it that the project calls (`OrtModule`).
 */
declare module 'onnxruntime-node' {
  const onnxruntime: unknown;
  export default onnxruntime;
}
