/*
   Files on a shared machine (include/pipekrylov/private/pkfiles.h, docs/security.md). The tools and the library run
   as root beside other users: a path in a shared directory may be a symbolic link, a FIFO or a device planted by
   someone else, and a file that was ours a moment ago may have been replaced. So files are read only when they are
   regular (and, in the profile cache, our own), written only through a fresh temporary name that is renamed over the
   path, and output paths that another writer opens by name are created with O_EXCL|O_NOFOLLOW or checked first.
*/
#include <pipekrylov/private/pkfiles.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WHY(...) \
  do { \
    if (why && whylen) snprintf(why, whylen, __VA_ARGS__); \
  } while (0)

/* Owner and mode of a file or directory that must be the caller's own and writable by nobody else */
static int PKOwnedPrivate(const struct stat *st, const char path[], const char *what, char why[], size_t whylen)
{
  char name[4200] = "";

  if (path) snprintf(name, sizeof(name), " '%s'", path);
  if (st->st_uid != geteuid()) {
    WHY("%s%s is owned by uid %u, not by you (uid %u)", what, name, (unsigned)st->st_uid, (unsigned)geteuid());
    return EPERM;
  }
  if (st->st_mode & (S_IWGRP | S_IWOTH)) {
    WHY("%s%s is writable by group or others (mode %04o)", what, name, (unsigned)(st->st_mode & 07777));
    return EPERM;
  }
  return 0;
}

int PKFileReadRegular(const char path[], int flags, size_t max, char **text, size_t *len, char why[], size_t whylen)
{
  struct stat st;
  char       *buf;
  size_t      n = 0;
  int         fd, e;

  *text = NULL;
  *len  = 0;
  /* O_NONBLOCK: opening a FIFO must not wait for a writer; it has no effect on a regular file */
  fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | ((flags & PK_FILE_PRIVATE) ? O_NOFOLLOW : 0));
  if (fd < 0) {
    e = errno;
    if (e == ELOOP && (flags & PK_FILE_PRIVATE)) WHY("it is a symbolic link");
    else WHY("%s", strerror(e));
    return e;
  }
  if (fstat(fd, &st)) {
    e = errno;
    WHY("%s", strerror(e));
    close(fd);
    return e;
  }
  if (!S_ISREG(st.st_mode)) {
    WHY("not a regular file (%s)", S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : S_ISSOCK(st.st_mode) ? "a socket" : "not a file");
    close(fd);
    return EINVAL;
  }
  if ((flags & PK_FILE_PRIVATE) && (e = PKOwnedPrivate(&st, NULL, "it", why, whylen))) {
    close(fd);
    return e;
  }
  if ((size_t)st.st_size > max) {
    WHY("%lld bytes, more than the %zu bytes such a file may have", (long long)st.st_size, max);
    close(fd);
    return EFBIG;
  }
  if (!(buf = (char *)malloc(max + 2))) {
    close(fd);
    WHY("out of memory");
    return ENOMEM;
  }
  /* the size may change while it is read: never more than max + 1 bytes, so that a growing file is refused too */
  for (;;) {
    ssize_t r = read(fd, buf + n, max + 1 - n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      e = errno;
      WHY("%s", strerror(e));
      free(buf);
      close(fd);
      return e;
    }
    if (r == 0) break;
    n += (size_t)r;
    if (n > max) {
      WHY("it grew beyond %zu bytes while it was read", max);
      free(buf);
      close(fd);
      return EFBIG;
    }
  }
  close(fd);
  buf[n] = 0;
  *text  = buf;
  *len   = n;
  return 0;
}

static mode_t PKUmask(void)
{
  mode_t um = umask(0);
  umask(um);
  return um;
}

/* dir and base of a path ("." for a bare name); 0 or ENAMETOOLONG */
static int PKSplitPath(const char path[], char dir[], size_t dlen, const char **base)
{
  const char *slash = strrchr(path, '/');

  if (!slash) {
    snprintf(dir, dlen, ".");
    *base = path;
  } else {
    size_t n = (size_t)(slash - path);
    if (n + 1 > dlen) return ENAMETOOLONG;
    if (n == 0) n = 1; /* "/name": the root */
    memcpy(dir, path, n);
    dir[n] = 0;
    *base  = slash + 1;
  }
  return 0;
}

int PKFileAtomicOpen(const char path[], PKAtomicFile *af, char why[], size_t whylen)
{
  const char *base;
  struct stat st;
  int         fd, e;

  memset(af, 0, sizeof(*af));
  if (!path || !path[0]) {
    WHY("no file name");
    return ENOENT;
  }
  if (!lstat(path, &st)) {
    if (S_ISLNK(st.st_mode)) {
      WHY("'%s' is a symbolic link: name the file itself", path);
      return ELOOP;
    }
    if (!S_ISREG(st.st_mode)) {
      WHY("'%s' is not a regular file (%s)", path, S_ISDIR(st.st_mode) ? "a directory" : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "a FIFO or a socket");
      return EINVAL;
    }
  }
  if (snprintf(af->path, sizeof(af->path), "%s", path) >= (int)sizeof(af->path) || PKSplitPath(path, af->dir, sizeof(af->dir), &base) || !base[0] || snprintf(af->tmp, sizeof(af->tmp), "%s/.%s.XXXXXX", af->dir, base) >= (int)sizeof(af->tmp)) {
    WHY("'%s': the name is too long or ends in '/'", path);
    return ENAMETOOLONG;
  }
  fd = mkstemp(af->tmp); /* O_CREAT|O_EXCL, mode 0600: nothing planted there is opened */
  if (fd < 0) {
    e = errno;
    WHY("cannot create a temporary file in '%s' to write '%s': %s", af->dir, path, strerror(e));
    return e;
  }
  if (fchmod(fd, 0644 & ~PKUmask()) || !(af->fp = fdopen(fd, "w"))) {
    e = errno;
    WHY("cannot write '%s': %s", path, strerror(e));
    close(fd);
    unlink(af->tmp);
    return e;
  }
  return 0;
}

int PKFileAtomicCommit(PKAtomicFile *af, char why[], size_t whylen)
{
  int e = 0, fd;

  if (!af->fp) return EBADF;
  if (fflush(af->fp) || ferror(af->fp)) e = errno ? errno : EIO;
  if (!e && fsync(fileno(af->fp))) e = errno; /* a full disk or a failing device may only say so here */
  if (fclose(af->fp) && !e) e = errno;
  af->fp = NULL;
  if (!e && rename(af->tmp, af->path)) e = errno;
  if (e) {
    WHY("cannot write '%s': %s (nothing was changed there)", af->path, strerror(e));
    unlink(af->tmp);
    return e;
  }
  /* the rename itself durable: best effort, a directory that cannot be synced changes nothing above */
  if ((fd = open(af->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
    (void)fsync(fd);
    close(fd);
  }
  return 0;
}

void PKFileAtomicAbort(PKAtomicFile *af)
{
  if (!af->fp) return;
  fclose(af->fp);
  af->fp = NULL;
  unlink(af->tmp);
}

int PKFileWriteAtomic(const char path[], const char data[], size_t len, mode_t mode, char why[], size_t whylen)
{
  PKAtomicFile af;
  int          e;

  if ((e = PKFileAtomicOpen(path, &af, why, whylen))) return e;
  if (fchmod(fileno(af.fp), mode & ~PKUmask())) {
    e = errno;
    PKFileAtomicAbort(&af);
    WHY("cannot write '%s': %s", path, strerror(e));
    return e;
  }
  /* write(2), not the stream: its errno (ENOSPC, EFBIG, EIO) is the one to report */
  for (size_t off = 0; off < len;) {
    ssize_t w = write(fileno(af.fp), data + off, len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      e = errno;
      PKFileAtomicAbort(&af);
      WHY("cannot write '%s': %s (nothing was changed there)", path, strerror(e));
      return e;
    }
    off += (size_t)w;
  }
  return PKFileAtomicCommit(&af, why, whylen);
}

int PKFileCheckOutput(const char path[], int *created, char why[], size_t whylen)
{
  struct stat st;
  int         fd, e;

  *created = 0;
  fd       = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
  if (fd >= 0) {
    *created = 1;
    close(fd);
    return 0;
  }
  e = errno;
  if (e != EEXIST) {
    WHY("%s", strerror(e));
    return e;
  }
  if (lstat(path, &st)) {
    e = errno;
    WHY("%s", strerror(e));
    return e;
  }
  if (S_ISLNK(st.st_mode)) {
    WHY("it is a symbolic link: name the file itself");
    return ELOOP;
  }
  /* a character device (/dev/null as a sink) is named by the user and made by root alone: let it be */
  if (S_ISCHR(st.st_mode)) return 0;
  if (!S_ISREG(st.st_mode)) { /* a FIFO would block the writer's open; a directory or a disk is no output */
    WHY("it is not a regular file (%s)", S_ISDIR(st.st_mode) ? "a directory" : S_ISBLK(st.st_mode) ? "a block device" : "a FIFO or a socket");
    return EINVAL;
  }
  if (st.st_uid != geteuid()) {
    WHY("it exists and is owned by uid %u, not by you (uid %u): remove it or name another file", (unsigned)st.st_uid, (unsigned)geteuid());
    return EPERM;
  }
  return 0;
}

int PKDirCheckPrivate(const char dir[], char why[], size_t whylen)
{
  struct stat st;
  int         e;

  if (lstat(dir, &st)) {
    e = errno;
    WHY("directory '%s': %s", dir, strerror(e));
    return e;
  }
  if (S_ISLNK(st.st_mode)) {
    WHY("the directory '%s' is a symbolic link", dir);
    return ELOOP;
  }
  if (!S_ISDIR(st.st_mode)) {
    WHY("'%s' is not a directory", dir);
    return ENOTDIR;
  }
  return PKOwnedPrivate(&st, dir, "the directory", why, whylen);
}

int PKDirMakePrivate(const char dir[], char why[], size_t whylen)
{
  char p[4096];

  if (snprintf(p, sizeof(p), "%s", dir) >= (int)sizeof(p) || !p[0]) {
    WHY("directory name too long or empty");
    return ENAMETOOLONG;
  }
  for (char *s = p + 1; *s; s++) { /* the parents, as mkdir -p (0700 for those it creates) */
    if (*s != '/') continue;
    *s = 0;
    if (mkdir(p, 0700) && errno != EEXIST) {
      int e = errno;
      WHY("cannot create the directory '%s': %s", p, strerror(e));
      return e;
    }
    *s = '/';
  }
  if (!mkdir(p, 0700)) return 0; /* made here, atomically: ours and private */
  if (errno != EEXIST) {
    int e = errno;
    WHY("cannot create the directory '%s': %s", p, strerror(e));
    return e;
  }
  return PKDirCheckPrivate(p, why, whylen);
}

/* The length of the valid UTF-8 sequence at s (1 to 4 bytes; no overlong form, no surrogate, at most U+10FFFF), or
   0 when s does not start one */
static size_t PKUtf8Length(const unsigned char *s)
{
  unsigned char lo = 0x80, hi = 0xbf;
  size_t        n;

  if (s[0] < 0x80) return 1;
  if (s[0] >= 0xc2 && s[0] <= 0xdf) n = 2;
  else if (s[0] >= 0xe0 && s[0] <= 0xef) {
    n = 3;
    if (s[0] == 0xe0) lo = 0xa0;      /* overlong */
    else if (s[0] == 0xed) hi = 0x9f; /* surrogates */
  } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
    n = 4;
    if (s[0] == 0xf0) lo = 0x90;      /* overlong */
    else if (s[0] == 0xf4) hi = 0x8f; /* beyond U+10FFFF */
  } else return 0;
  if (s[1] < lo || s[1] > hi) return 0;
  for (size_t k = 2; k < n; k++)
    if (s[k] < 0x80 || s[k] > 0xbf) return 0;
  return n;
}

const char *PKTextEscape(const char in[], char out[], size_t outlen)
{
  const unsigned char *s = (const unsigned char *)(in ? in : "");
  size_t               o = 0;

  if (!outlen) return out;
  while (*s) {
    size_t n = PKUtf8Length(s), esc;
    char   piece[8];

    /* escaped: a C0 control or DEL, a byte that starts no UTF-8 sequence, a C1 control (U+0080..U+009F, which
       some terminals obey as they do ESC [) */
    esc = (*s < 0x20 || *s == 0x7f) ? 1 : !n ? 1 : (n == 2 && s[0] == 0xc2 && s[1] < 0xa0) ? 2 : 0;
    if (esc) {
      for (size_t k = 0; k < esc; k++) {
        snprintf(piece, sizeof(piece), "\\x%02x", s[k]);
        if (o + 4 >= outlen) goto full;
        memcpy(out + o, piece, 4);
        o += 4;
      }
      s += esc;
    } else {
      if (o + n >= outlen) goto full; /* a sequence is never cut */
      memcpy(out + o, s, n);
      o += n;
      s += n;
    }
  }
full:
  out[o] = 0;
  return out;
}
