/**
 * @module @parley/web
 * The built chat page. Servers serve the files of {@link webRoot}; the page itself needs nothing else.
 */

/** The folder of the built chat page (`vite build` output): `index.html` and `assets/`. */
export declare const webRoot: string;
