#ifndef GATEWAY_CVIPS_SHIM_H
#define GATEWAY_CVIPS_SHIM_H

#include <vips/vips.h>
#include <webp/mux.h>

// libvips' options are C varargs, which Swift cannot call: each call the gateway makes is
// one function here with fixed arguments. Every function returns 0 on success and -1 on
// failure, with libvips' error buffer holding the reason (cvips_error).

/// Drops libvips' warnings (see cvips_start).
static void cvips_ignore_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

/// The loaders the gateway calls, by name.
enum {
    CVIPS_JPEG = 1,
    CVIPS_PNG = 2,
    CVIPS_WEBP = 3,
    CVIPS_GIF = 4,
    CVIPS_HEIF = 5,
};

/// Opens `buffer` (which must outlive the image) with the loader of `type`, sequentially, failing
/// on damaged data. Reads the header only: pixels are decoded when the image is written. `shrink`
/// (JPEG: 1, 2, 4 or 8) and `scale` (WebP) decode at a smaller size (shrink-on-load); GIF
/// gives its first frame.
static inline int cvips_load(const void *buffer, size_t length, int type, int shrink, double scale, VipsImage **out) {
    void *data = (void *)buffer;
    switch (type) {
    case CVIPS_JPEG:
        return vips_jpegload_buffer(data, length, out, "shrink", shrink, "access", VIPS_ACCESS_SEQUENTIAL,
            "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    case CVIPS_PNG:
        return vips_pngload_buffer(data, length, out, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    case CVIPS_WEBP:
        return vips_webpload_buffer(data, length, out, "scale", scale, "access", VIPS_ACCESS_SEQUENTIAL,
            "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    case CVIPS_GIF:
        return vips_gifload_buffer(data, length, out, "n", 1, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    case CVIPS_HEIF:
        return vips_heifload_buffer(data, length, out, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    default:
        vips_error("cvips", "unknown loader");
        return -1;
    }
}

/// Resizes `in` to `width` pixels wide (height free, never larger than it is), after applying
/// its EXIF orientation. An image with an embedded ICC profile, or in CMYK, is converted to
/// sRGB; one without a profile is taken to be sRGB already and left as it is (converting it
/// "from sRGB to sRGB" through libvips' built-in profile shifts its colours).
static inline int cvips_thumbnail(VipsImage *in, int width, VipsImage **out) {
    if (vips_image_get_typeof(in, VIPS_META_ICC_NAME) || vips_image_get_interpretation(in) == VIPS_INTERPRETATION_CMYK) {
        return vips_thumbnail_image(in, out, width, "height", VIPS_MAX_COORD, "size", VIPS_SIZE_DOWN,
            "export_profile", "srgb", NULL);
    }
    return vips_thumbnail_image(in, out, width, "height", VIPS_MAX_COORD, "size", VIPS_SIZE_DOWN, NULL);
}

/// A copy of `in` without any metadata: EXIF (GPS included), XMP, IPTC, the ICC profile,
/// comments, orientation. The savers' own `strip` option is not enough: libvips 8.14's WebP
/// saver still writes EXIF and ICC with it.
static inline int cvips_strip(VipsImage *in, VipsImage **out) {
    if (vips_copy(in, out, NULL)) return -1;
    gchar **fields = vips_image_get_fields(*out);
    for (int i = 0; fields[i]; i++) vips_image_remove(*out, fields[i]);
    g_strfreev(fields);
    return 0;
}

/// Flattens an alpha channel onto white (for JPEG, which has none); a copy otherwise.
static inline int cvips_flatten(VipsImage *in, VipsImage **out) {
    if (!vips_image_hasalpha(in)) return vips_copy(in, out, NULL);
    VipsArrayDouble *white = vips_array_double_newv(3, 255.0, 255.0, 255.0);
    int result = vips_flatten(in, out, "background", white, NULL);
    vips_area_unref(VIPS_AREA(white));
    return result;
}

/// The encoders the gateway calls. Every one strips metadata (EXIF, GPS, XMP, IPTC, the ICC
/// profile: the pixels are sRGB by then).
enum {
    CVIPS_SAVE_JPEG = 1,
    CVIPS_SAVE_PNG = 2,
    CVIPS_SAVE_WEBP = 3,
    CVIPS_SAVE_GIF = 4,
    CVIPS_SAVE_AVIF = 5,
    /// HEIC (HEVC in HEIF), as iPhones write: never sent by the gateway; the tests make
    /// phone photos with it.
    CVIPS_SAVE_HEIC = 6,
};

/// Encodes `in` as `format` into a new buffer (free it with g_free). `quality` is the
/// encoder's Q (JPEG, WebP, AVIF); `effort` is AVIF's (0 fastest to 9 slowest).
static inline int cvips_save(VipsImage *in, int format, int quality, int effort, void **buffer, size_t *length) {
    switch (format) {
    case CVIPS_SAVE_JPEG:
        return vips_jpegsave_buffer(in, buffer, length, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, NULL);
    case CVIPS_SAVE_PNG:
        return vips_pngsave_buffer(in, buffer, length, "strip", TRUE, "compression", 6, NULL);
    case CVIPS_SAVE_WEBP:
        return vips_webpsave_buffer(in, buffer, length, "Q", quality, "strip", TRUE, "effort", 4, NULL);
    case CVIPS_SAVE_GIF:
        return vips_gifsave_buffer(in, buffer, length, "strip", TRUE, NULL);
    case CVIPS_SAVE_AVIF:
        return vips_heifsave_buffer(in, buffer, length, "Q", quality, "strip", TRUE, "effort", effort,
            "compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1, NULL);
    case CVIPS_SAVE_HEIC:
        return vips_heifsave_buffer(in, buffer, length, "Q", quality, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_HEVC, NULL);
    default:
        vips_error("cvips", "unknown encoder");
        return -1;
    }
}

/// A render's time limit: past `deadline` (g_get_monotonic_time microseconds) libvips stops
/// computing the image it is attached to, and the save fails. It is checked as pixels are
/// computed (decode, resize); the last step of the AVIF and WebP encoders runs after the
/// pixels are done and is not interrupted.
typedef struct {
    gint64 deadline;
    /// Set when the deadline stopped the computation (so a failure is known to be the
    /// deadline's, not one that merely came late).
    volatile gint fired;
} cvips_deadline;

static void cvips_check_deadline(VipsImage *image, VipsProgress *progress, void *data) {
    (void)progress;
    cvips_deadline *deadline = (cvips_deadline *)data;
    if (g_get_monotonic_time() > deadline->deadline) {
        g_atomic_int_set(&deadline->fired, 1);
        vips_image_set_kill(image, TRUE);
    }
}

/// Whether the deadline stopped the computation.
static inline int cvips_deadline_fired(cvips_deadline *deadline) { return g_atomic_int_get(&deadline->fired); }

/// Attaches `deadline` (which must outlive `image`'s evaluation) to `image`.
static inline void cvips_set_deadline(VipsImage *image, cvips_deadline *deadline) {
    vips_image_set_progress(image, TRUE);
    g_signal_connect(image, "eval", G_CALLBACK(cvips_check_deadline), deadline);
}

/// `in` fitted within `side`×`side` pixels (never enlarged; EXIF orientation applied; sRGB as
/// cvips_thumbnail converts it), as 8-bit RGBA with straight alpha (255 where the image has no
/// alpha channel): `*width` × `*height` × 4 bytes, row by row, in a new buffer (free it with
/// cvips_free). `deadline` (see cvips_set_deadline), when not NULL, stops the computation.
static inline int cvips_rgba_preview(VipsImage *in, int side, cvips_deadline *deadline, void **pixels, size_t *length, int *width,
    int *height) {
    VipsImage *fitted = NULL, *srgb = NULL, *bytes = NULL, *rgba = NULL;
    int failed;
    if (vips_image_get_typeof(in, VIPS_META_ICC_NAME) || vips_image_get_interpretation(in) == VIPS_INTERPRETATION_CMYK) {
        failed = vips_thumbnail_image(in, &fitted, side, "height", side, "size", VIPS_SIZE_DOWN, "export_profile", "srgb", NULL);
    } else {
        // No profile to apply: turned upright and reduced with a linear kernel, which is all a
        // blurred placeholder needs (vips_thumbnail_image's premultiplied, sharper path costs
        // several times more on these few pixels).
        VipsImage *upright = NULL;
        failed = vips_autorot(in, &upright, NULL);
        if (!failed) {
            int longer = MAX(vips_image_get_width(upright), vips_image_get_height(upright));
            if (longer > side) {
                failed = vips_resize(upright, &fitted, (double)side / longer, "kernel", VIPS_KERNEL_LINEAR, NULL);
            } else {
                failed = vips_copy(upright, &fitted, NULL);
            }
            g_object_unref(upright);
        }
    }
    if (!failed) failed = vips_colourspace(fitted, &srgb, VIPS_INTERPRETATION_sRGB, NULL);
    if (!failed) failed = vips_cast(srgb, &bytes, VIPS_FORMAT_UCHAR, NULL);
    if (!failed) {
        int bands = vips_image_get_bands(bytes);
        if (bands == 3) {
            failed = vips_bandjoin_const1(bytes, &rgba, 255, NULL);
        } else if (bands == 4) {
            failed = vips_copy(bytes, &rgba, NULL);
        } else {
            vips_error("cvips", "%d bands after sRGB conversion", bands);
            failed = -1;
        }
    }
    if (!failed) {
        if (deadline) cvips_set_deadline(rgba, deadline);
        *pixels = vips_image_write_to_memory(rgba, length);
        failed = *pixels ? 0 : -1;
        *width = vips_image_get_width(rgba);
        *height = vips_image_get_height(rgba);
    }
    if (rgba) g_object_unref(rgba);
    if (bytes) g_object_unref(bytes);
    if (srgb) g_object_unref(srgb);
    if (fitted) g_object_unref(fitted);
    return failed;
}

/// `webp` (a WebP file) without its EXIF, XMP and ICC chunks, through libwebpmux, into a new
/// buffer (free it with cvips_webp_free). libvips 8.14's WebP saver writes an EXIF block of its
/// own (resolution, size) even with `strip`.
static inline int cvips_webp_strip(const void *webp, size_t length, uint8_t **out, size_t *out_length) {
    WebPData data = {(const uint8_t *)webp, length};
    WebPMux *mux = WebPMuxCreate(&data, 0);
    if (!mux) return -1;
    WebPMuxDeleteChunk(mux, "EXIF");
    WebPMuxDeleteChunk(mux, "XMP ");
    WebPMuxDeleteChunk(mux, "ICCP");
    WebPData assembled;
    WebPDataInit(&assembled);
    WebPMuxError error = WebPMuxAssemble(mux, &assembled);
    WebPMuxDelete(mux);
    if (error != WEBP_MUX_OK) return -1;
    *out = (uint8_t *)assembled.bytes;
    *out_length = assembled.size;
    return 0;
}

static inline void cvips_webp_free(uint8_t *buffer) { WebPFree(buffer); }

static inline int cvips_width(VipsImage *image) { return vips_image_get_width(image); }
static inline int cvips_height(VipsImage *image) { return vips_image_get_height(image); }
/// Whether the EXIF orientation turns the image a quarter (width and height swap on display).
static inline int cvips_orientation_swaps(VipsImage *image) { return vips_image_get_orientation_swap(image); }
static inline void cvips_unref(VipsImage *image) { g_object_unref(image); }

/// Runs every operation a render uses once, on tiny images, in each format in and out, with
/// and without an ICC profile and an alpha channel. libvips finds operation classes by name,
/// and two threads that look a class up for the first time at once can fail ("class
/// "heifsave_buffer" not found"): after this, every class is initialised before any worker
/// renders.
static inline void cvips_warm(void) {
    VipsImage *black = NULL, *profiled = NULL, *alpha = NULL;
    if (vips_black(&black, 8, 8, "bands", 3, NULL)) return;
    if (vips_icc_transform(black, &profiled, "srgb", "input_profile", "srgb", NULL)) profiled = NULL;
    if (vips_bandjoin_const1(black, &alpha, 255, NULL)) alpha = NULL;
    VipsImage *bases[] = {black, profiled, alpha};
    const int savers[] = {CVIPS_SAVE_JPEG, CVIPS_SAVE_PNG, CVIPS_SAVE_WEBP, CVIPS_SAVE_GIF, CVIPS_SAVE_AVIF};
    const int loaders[] = {CVIPS_JPEG, CVIPS_PNG, CVIPS_WEBP, CVIPS_GIF, CVIPS_HEIF};
    for (int b = 0; b < 3; b++) {
        if (!bases[b]) continue;
        for (int s = 0; s < 5; s++) {
            void *source = NULL;
            size_t length = 0;
            if (cvips_save(bases[b], savers[s], 50, 0, &source, &length)) continue;
            VipsImage *loaded = NULL, *resized = NULL, *flat = NULL, *bare = NULL;
            if (!cvips_load(source, length, loaders[s], 1, 1, &loaded) && !cvips_thumbnail(loaded, 4, &resized)
                && !cvips_flatten(resized, &flat) && !cvips_strip(flat, &bare)) {
                for (int t = 0; t < 5; t++) {
                    void *out = NULL;
                    size_t out_length = 0;
                    if (!cvips_save(bare, savers[t], 50, 0, &out, &out_length)) g_free(out);
                }
            }
            if (bare) g_object_unref(bare);
            if (flat) g_object_unref(flat);
            if (resized) g_object_unref(resized);
            if (loaded) g_object_unref(loaded);
            g_free(source);
        }
    }
    for (int b = 0; b < 3; b++) if (bases[b]) g_object_unref(bases[b]);
    vips_error_clear();
}

/// Starts libvips once per process: no operation cache (every render is new, and a cache
/// holds decoded pixels), one thread per render (the gateway runs one render per worker),
/// untrusted loaders blocked, warnings dropped (a log line per odd input is a flood an
/// attacker controls; the failure itself is reported), every operation warmed up.
static inline int cvips_start(void) {
    if (VIPS_INIT("open-market-gateway")) return -1;
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    vips_concurrency_set(1);
    vips_block_untrusted_set(TRUE);
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO | G_LOG_LEVEL_DEBUG,
        cvips_ignore_log, NULL);
    cvips_warm();
    return 0;
}

/// libvips' error messages since the last clear, then cleared (the buffer is per process:
/// messages of concurrent renders may mix, so they are for logs, never for clients).
static inline char *cvips_error(void) {
    char *text = vips_error_buffer_copy();
    return text;
}

/// Frees what libvips allocated with g_malloc (encoded buffers, error text).
static inline void cvips_free(void *pointer) { g_free(pointer); }

/// Frees libvips' per-thread state: a worker thread calls it before it ends.
static inline void cvips_thread_done(void) { vips_thread_shutdown(); }

#endif
