const TAG_NAME = /^[A-Za-z_][\w.-]*$/;

/**
 * Checks an XML tag name given by code (never model output): a name with `<`, `>`, `/` or spaces could not be
 * matched reliably and would break the bound on held-back input.
 */
export function assertTagName(name: string): void {
  if (!TAG_NAME.test(name)) {
    throw new TypeError(`Invalid XML tag name ${JSON.stringify(name)}`);
  }
}
