import type { Exif } from "sharp";
import type { Rng } from "./prng.ts";
import { exifDateTime, offsetString } from "./schedule.ts";
import type { TruthCamera } from "./truth.ts";

/** The camera behind the card: one body, one serial, one owner field, for every photo. */
export function chooseCamera(rng: Rng): TruthCamera {
  return {
    make: "NIKON CORPORATION",
    model: "NIKON D90",
    serial: String(rng.int(3000000, 3199999)),
    software: "Ver.1.00",
    // Pseudonymous on purpose: the archive must treat owner fields as able to reveal a source.
    artist: `MP-DOC-${String(rng.int(1, 40)).padStart(2, "0")}`,
  };
}

/** Exposure settings of one shot with the built-in flash indoors. */
export interface ShotSettings {
  exposureTime: string;
  fNumber: string;
  iso: string;
  focalLength: string;
  focal35: string;
}

export function chooseShotSettings(rng: Rng): ShotSettings {
  const focal = rng.pick([18, 18, 24, 28, 35, 35, 50]);
  return {
    exposureTime: rng.pick(["1/60", "1/60", "1/80", "1/125"]),
    fNumber: rng.pick(["40/10", "45/10", "50/10", "56/10"]),
    iso: rng.pick(["200", "400", "400", "800"]),
    focalLength: `${focal * 10}/10`,
    focal35: String(Math.round(focal * 1.5)),
  };
}

/** EXIF for a camera original taken at `wall` (Damascus wall-clock ms, see schedule.ts). */
export function cameraExif(camera: TruthCamera, wall: number, shot: ShotSettings): Exif {
  const when = exifDateTime(wall);
  const offset = offsetString(wall);
  return {
    IFD0: {
      Make: camera.make,
      Model: camera.model,
      Software: camera.software,
      DateTime: when,
      Artist: camera.artist,
    },
    IFD2: {
      ExposureTime: shot.exposureTime,
      FNumber: shot.fNumber,
      ExposureProgram: "1",
      ISOSpeedRatings: shot.iso,
      DateTimeOriginal: when,
      DateTimeDigitized: when,
      OffsetTime: offset,
      OffsetTimeOriginal: offset,
      OffsetTimeDigitized: offset,
      SubSecTimeOriginal: "00",
      SubSecTimeDigitized: "00",
      ExposureBiasValue: "0/6",
      MeteringMode: "5",
      Flash: "9",
      FocalLength: shot.focalLength,
      ColorSpace: "1",
      FocalLengthIn35mmFilm: shot.focal35,
      WhiteBalance: "0",
      SceneCaptureType: "0",
      BodySerialNumber: camera.serial,
      CameraOwnerName: camera.artist,
    },
  };
}

/** What an in-camera retouch changes: the modification time. */
export function retouchExif(wall: number): Exif {
  return { IFD0: { DateTime: exifDateTime(wall) }, IFD2: { OffsetTime: offsetString(wall) } };
}
