import { Invalid } from "../../core/errors.ts";
import { say } from "../../core/messages.ts";

/**
 * File names as a Nikon D90 writes them (DCF): DCIM/100NCD90/DSC_0001.JPG, numbering continuous across
 * folders; a new folder when the current one holds `filesPerFolder` files or the number passes 9999 (then
 * numbering restarts at 0001). In-camera retouched copies are CSC_nnnn, small-picture copies SSC_nnnn.
 */
export const CAMERA_FOLDER_SUFFIX = "NCD90";

export class DcfNamer {
  private folder = 100;
  private number = 0;
  private inFolder = 0;

  constructor(private readonly filesPerFolder: number) {
    if (!Number.isInteger(filesPerFolder) || filesPerFolder < 1 || filesPerFolder > 9999) {
      throw new Invalid(say("demoCard.filesPerFolder"), "filesPerFolder");
    }
  }

  next(prefix: "DSC_" | "CSC_" | "SSC_", ext: string): string {
    this.number++;
    if (this.number > 9999) {
      this.number = 1;
      this.rollFolder();
    } else if (this.inFolder >= this.filesPerFolder) {
      this.rollFolder();
    }
    this.inFolder++;
    return `DCIM/${this.folder}${CAMERA_FOLDER_SUFFIX}/${prefix}${String(this.number).padStart(4, "0")}.${ext}`;
  }

  private rollFolder(): void {
    this.folder++;
    this.inFolder = 0;
    if (this.folder > 999) {
      throw new Invalid(say("demoCard.full"));
    }
  }
}

/** Where copies made on a computer and put back on the card live: another DCF folder, same file names. */
export const COPY_FOLDER = "DCIM/900_COPY";

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
