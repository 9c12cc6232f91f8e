! SPDX-License-Identifier: BSD-3-Clause
! Point-to-point and collective calls from Fortran (`use mpi`), for
! tests/mpi/fortran_calls.sh: around a ring of an even number of ranks,
! each rank sends one double to its right neighbour with MPI_Send (tag 7)
! and receives one from its left with MPI_Recv and MPI_STATUS_IGNORE, then
! again with MPI_Irecv / MPI_Isend (tag 8) completed by MPI_Waitall with
! MPI_STATUSES_IGNORE, a third time (tag 9) completed by MPI_Waitany then
! MPI_Waitsome, then sums with MPI_Allreduce.
program fortran_ring
  use mpi
  implicit none
  integer :: ierr, rank, nranks, right, left, reqs(2), i, n, done(2)
  double precision :: x, y, s
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  right = mod(rank + 1, nranks)
  left = mod(rank + nranks - 1, nranks)
  x = rank
  if (mod(rank, 2) == 0) then
    call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, right, 7, MPI_COMM_WORLD, ierr)
    call MPI_Recv(y, 1, MPI_DOUBLE_PRECISION, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  else
    call MPI_Recv(y, 1, MPI_DOUBLE_PRECISION, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, right, 7, MPI_COMM_WORLD, ierr)
  end if
  if (nint(y) /= left) stop 1
  call MPI_Irecv(y, 1, MPI_DOUBLE_PRECISION, left, 8, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(x, 1, MPI_DOUBLE_PRECISION, right, 8, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call MPI_Irecv(y, 1, MPI_DOUBLE_PRECISION, left, 9, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(x, 1, MPI_DOUBLE_PRECISION, right, 9, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitany(2, reqs, i, MPI_STATUS_IGNORE, ierr)
  call MPI_Waitsome(2, reqs, n, done, MPI_STATUSES_IGNORE, ierr)
  if (n /= 1 .or. done(1) /= 3 - i) stop 3
  call MPI_Allreduce(x, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (nint(s) /= nranks * (nranks - 1) / 2) stop 2
  call MPI_Finalize(ierr)
end program fortran_ring
