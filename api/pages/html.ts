// The pages' templating lives in platform/html.ts, shared with the identity provider's own pages
// (which may not import api/); the pages keep importing it from here.
export * from '../../platform/html.ts';
