// Types for the plain-JavaScript launcher (node-launcher.mjs), which stays JavaScript so that Node 20
// can run it; only what TypeScript code imports is declared.
export declare function installedMatchesLock(lockPath: string, installedPath: string): boolean;
