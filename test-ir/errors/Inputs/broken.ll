; Parses, but %a's use does not follow its definition: the verifier rejects it.
define i32 @f() {
  %a = add i32 %b, 1
  %b = add i32 %a, 1
  ret i32 %a
}
