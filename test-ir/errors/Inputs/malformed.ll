; A missing operand on line 3, column 3 (the parser reports where it gave up).
define void @f() {
  %x = add i32 1,
  ret void
}
