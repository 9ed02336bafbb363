import { route, type RouteSpec } from "../http/route-spec.ts";
import { myWork } from "./work.ts";
import * as contracts from "./contracts.ts";

/** A person's home page over HTTP: what waits for them. */
export const WORK_ROUTES: readonly RouteSpec[] = [
  route({ method: "GET", url: "/api/work", action: "work.read", summary: "what waits for the signed-in person, by kind, with where to go", response: contracts.GetWorkAnswer, handler: (_r, ctx, actor) => myWork(ctx, actor) }),
];
