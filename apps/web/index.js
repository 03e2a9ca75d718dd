import { fileURLToPath } from 'node:url';

/** The folder of the built chat page (`vite build` output): `index.html` and `assets/`. */
export const webRoot = fileURLToPath(new URL('./dist/', import.meta.url));
