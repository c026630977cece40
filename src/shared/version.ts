/** The release of svc and svcd; a test keeps it equal to package.json. */
export const SVC_VERSION = '0.1.0';
