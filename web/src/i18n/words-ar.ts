import ar from "./ar.json";
import { withAreas, type Tree } from "./words.ts";

export const words = withAreas(ar as Tree, import.meta.glob<Tree>("./areas/*.ar.json", { eager: true, import: "default" }));
