! SPDX-License-Identifier: BSD-3-Clause
! An unmodified Fortran program for `record --region` (region.sh): the
! module procedure heat::relax (region_fortran_heat.f90), called 25 times.
program region_fortran
  use heat
  implicit none
  double precision :: u(1000)
  integer :: it
  u = 0
  u(1000) = 1
  do it = 1, 25
    call relax(u, 1000)
  end do
  print '(a, f8.5)', 'region_fortran: ', u(999)
end program region_fortran
