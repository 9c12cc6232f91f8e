! SPDX-License-Identifier: BSD-3-Clause
! Fortran ALLOCATE: an array allocated once and a temporary allocated and
! deallocated in every iteration; tests/analysis/alloc_sites.sh checks
! that both are named by the ALLOCATE lines (the comments name them) and
! that the temporary is one family.  Arguments: none.
program alloc_sites_f
    use tracefold
    implicit none
    integer, parameter :: n = 200000
    real(8), allocatable :: grid(:), tmp(:)
    integer :: it, i
    real(8) :: s
    allocate(grid(n)) ! site-grid
    grid = 1.0d0
    s = 0
    do it = 1, 200
        call tracefold_region_begin("iteration")
        allocate(tmp(n)) ! site-tmp
        do i = 1, n
            tmp(i) = grid(i) * it
        end do
        do i = 1, n
            grid(i) = grid(i) + 1.0d-6 * tmp(i)
        end do
        s = s + tmp(n)
        deallocate(tmp)
        call tracefold_region_end("iteration")
    end do
    print '(a, f14.3)', 'alloc_sites_f: ', s + grid(n)
end program alloc_sites_f
