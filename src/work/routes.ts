import type { RegisterRoute } from "../http/app.ts";
import { myWork } from "./work.ts";

export function registerWorkRoutes(route: RegisterRoute): void {
  route({ method: "GET", url: "/api/work", action: "work.read", summary: "what waits for the signed-in person, by kind, with where to go", handler: (_r, ctx, actor) => myWork(ctx, actor) });
}
