import { z } from 'zod';

/**
 * The base URL of a service a user points the daemon at (an upstream registry, another installation):
 * http(s), no credentials (they go in a secret reference), no query or fragment (paths are appended).
 */
export const httpBaseUrl = z
  .string()
  .max(2048)
  .refine(
    (text) => {
      if (!URL.canParse(text)) return false;
      const url = new URL(text);
      return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password && !url.search && !url.hash;
    },
    { message: 'an http(s) URL without credentials, query or fragment' },
  );
