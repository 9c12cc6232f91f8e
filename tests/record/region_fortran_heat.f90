! SPDX-License-Identifier: BSD-3-Clause
! The module of region_fortran.f90, in a file of its own as in real codes
! (and so not inlined into the program).
module heat
  implicit none
contains
  subroutine relax(u, n)
    integer, intent(in) :: n
    double precision, intent(inout) :: u(n)
    integer :: i
    do i = 2, n - 1
      u(i) = 0.5d0 * (u(i - 1) + u(i + 1))
    end do
  end subroutine relax
end module heat
