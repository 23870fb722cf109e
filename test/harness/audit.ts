/**
 * What the password sign-in suites (unit, through the app; e2e, through the processes) expect
 * the audit log to hold after their runs: each action and outcome as `<action>:<outcome>`.
 */
export const PASSWORD_SIGN_IN_AUDITED = [
  "auth.sign_in:success",
  "auth.sign_in:failure",
  "auth.sign_out:success",
  "sessions.revoke:success",
  "principals.set_password:success",
] as const;
