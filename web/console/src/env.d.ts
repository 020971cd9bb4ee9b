/** Stylesheets imported for their effect: esbuild bundles them into the console's stylesheet. */
declare module '*.css';
