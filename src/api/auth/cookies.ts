/** Reading and writing the sign-in cookies (no secret value is ever logged: headers are not). */

/** The value of cookie `name` in a `Cookie` header, or `undefined`. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export interface CookieOptions {
  readonly path: string;
  /** Seconds; 0 clears the cookie. */
  readonly maxAgeSeconds: number;
  /** `Secure`: always when the site is served over https. */
  readonly secure: boolean;
}

/** A `Set-Cookie` value: always `HttpOnly` and `SameSite=Lax` (sent on the provider's redirect back). */
export function setCookie(name: string, value: string, opts: CookieOptions): string {
  return [
    `${name}=${value}`,
    `Path=${opts.path}`,
    `Max-Age=${opts.maxAgeSeconds}`,
    "HttpOnly",
    "SameSite=Lax",
    ...(opts.secure ? ["Secure"] : []),
  ].join("; ");
}
