import en from "./en.json";
import { withAreas, type Tree } from "./words.ts";

export const words = withAreas(en as Tree, import.meta.glob<Tree>("./areas/*.en.json", { eager: true, import: "default" }));
