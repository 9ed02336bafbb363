import type { ReactNode } from "react";

/** A message box: errors are announced at once (role=alert), other notices politely (role=status). */
export function Notice({ kind, title, children }: { kind: "error" | "info" | "ok" | "warn"; title?: string; children?: ReactNode }) {
  return (
    <div className={`notice notice-${kind}`} role={kind === "error" ? "alert" : "status"}>
      {title && <p className="notice-title">{title}</p>}
      {children && <div>{children}</div>}
    </div>
  );
}
