! SPDX-License-Identifier: BSD-3-Clause
! The kernels of examples/jacobi.f90, in a file of their own so that the
! compiler cannot inline them into the main program: each stays a routine
! of its own in the folded code-line view.
module jacobi_kernels
    use, intrinsic :: iso_c_binding, only: c_int64_t
    use tracefold
    implicit none
contains
    ! Column-major: the inner loop runs down a column (first index), so u
    ! and unew are read and written at consecutive addresses.
    subroutine jacobi_sweep(u, unew, n, cells)
        integer, intent(in) :: n, cells
        real(8), intent(in) :: u(n, n)
        real(8), intent(out) :: unew(n, n)
        integer :: i, j
        do j = 2, n - 1
            do i = 2, n - 1
                unew(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
            end do
            call tracefold_counter_add(cells, int(n - 2, c_int64_t))
        end do
    end subroutine jacobi_sweep

    subroutine jacobi_copy(unew, u, n)
        integer, intent(in) :: n
        real(8), intent(in) :: unew(n, n)
        real(8), intent(inout) :: u(n, n)
        integer :: i, j
        do j = 2, n - 1
            do i = 2, n - 1
                u(i, j) = unew(i, j)
            end do
        end do
    end subroutine jacobi_copy
end module jacobi_kernels
