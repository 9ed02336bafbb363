import type { ScreenDef } from "../../app/screens.ts";
import { lazyScreen } from "../../app/lazy-screen.tsx";

/** A person's home: what waits for them. "/" leads here for everyone who has work. */
export const screens: ScreenDef[] = [{ id: "home", path: "/home", title: "work.title", menu: 1, group: "home", requires: ["work.read"], component: lazyScreen(() => import("./Home.tsx"), "Home") }];
