// The page's build id: vite.config.ts defines __STAR_BUILD__ (the commit's short hash); 'dev' where it is not defined.
declare const __STAR_BUILD__: string | undefined;
export const BUILD: string = typeof __STAR_BUILD__ === 'string' ? __STAR_BUILD__ : 'dev';
