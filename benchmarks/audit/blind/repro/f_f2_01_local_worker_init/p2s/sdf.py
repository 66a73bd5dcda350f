from p2s import utils_mp


def implicit_surface_to_mesh_file(a, b):
    return a * b


def implicit_surface_to_mesh_directory(num_processes):
    calls = [(i, i + 1) for i in range(6)]
    return utils_mp.start_process_pool(implicit_surface_to_mesh_file, calls, num_processes)
