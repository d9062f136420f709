# TP_ADD_ACCEPTED_CFLAGS(VARIABLE, FLAGS)
# -----------------------------------------
# Appends to VARIABLE each of FLAGS that $CC accepts without a word (tried
# with -Werror, so clang's "unknown warning option" counts as a no). gcc
# takes any -Wno-X in silence and only complains about an unknown one when
# another warning shows up, so -Wno-X is tried as -WX.
AC_DEFUN([TP_ADD_ACCEPTED_CFLAGS], [
for tp_flag in $2; do
  AS_CASE([$tp_flag], [-Wno-*], [tp_probe=-W`expr "x$tp_flag" : 'x-Wno-\(.*\)'`], [tp_probe=$tp_flag])
  AC_MSG_CHECKING([whether $CC accepts $tp_flag])
  tp_save_CFLAGS=$CFLAGS
  CFLAGS="$CFLAGS -Werror $tp_probe"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
    [AC_MSG_RESULT([yes]); $1="[$]$1 $tp_flag"],
    [AC_MSG_RESULT([no])])
  CFLAGS=$tp_save_CFLAGS
done
])
