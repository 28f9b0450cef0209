#include "instruments/import_slots.hpp"

#include <cstring>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

namespace
{
    struct executable_tables
    {
        ElfW(Addr) base = 0;
        const ElfW(Rela) * jump_relocations = nullptr;
        size_t jump_relocation_bytes = 0;
        const ElfW(Sym) * symbols = nullptr;
        const char* names = nullptr;
        ElfW(Addr) relro_from = 0, relro_to = 0;
    };

    // glibc has already relocated the main program's dynamic entries in place;
    // an entry still below the load address is an offset from it.
    ElfW(Addr) absolute(ElfW(Addr) base, ElfW(Addr) value)
    {
        return value < base ? value + base : value;
    }

    void read_dynamic(executable_tables& out, const ElfW(Dyn) * entry)
    {
        for (; entry->d_tag != DT_NULL; ++entry)
        {
            const ElfW(Addr) at = absolute(out.base, entry->d_un.d_ptr);
            switch (entry->d_tag)
            {
                case DT_JMPREL: out.jump_relocations = reinterpret_cast<const ElfW(Rela)*>(at); break;
                case DT_PLTRELSZ: out.jump_relocation_bytes = entry->d_un.d_val; break;
                case DT_SYMTAB: out.symbols = reinterpret_cast<const ElfW(Sym)*>(at); break;
                case DT_STRTAB: out.names = reinterpret_cast<const char*>(at); break;
                default: break;
            }
        }
    }

    // The first object dl_iterate_phdr reports is the main program.
    int read_main_program(dl_phdr_info* info, size_t, void* data)
    {
        auto& out = *static_cast<executable_tables*>(data);
        out.base = info->dlpi_addr;
        for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i)
        {
            const ElfW(Phdr)& header = info->dlpi_phdr[i];
            if (header.p_type == PT_DYNAMIC)
                read_dynamic(out, reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + header.p_vaddr));
            if (header.p_type == PT_GNU_RELRO)
            {
                out.relro_from = info->dlpi_addr + header.p_vaddr;
                out.relro_to = out.relro_from + header.p_memsz;
            }
        }
        return 1;
    }

    uintptr_t page_of(uintptr_t address)
    {
        const auto size = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
        return address & ~(size - 1);
    }
}

namespace gillab
{
    import_slot import_slot::find(const std::string& symbol)
    {
        import_slot slot;
        executable_tables tables;
        dl_iterate_phdr(read_main_program, &tables);
        if (tables.jump_relocations == nullptr || tables.symbols == nullptr || tables.names == nullptr)
        {
            slot.reason_ = "this executable has no import table to read";
            return slot;
        }
        const size_t count = tables.jump_relocation_bytes / sizeof(ElfW(Rela));
        for (size_t i = 0; i < count; ++i)
        {
            const ElfW(Rela)& relocation = tables.jump_relocations[i];
            if (ELF64_R_TYPE(relocation.r_info) != R_X86_64_JUMP_SLOT) continue;
            const ElfW(Sym)& entry = tables.symbols[ELF64_R_SYM(relocation.r_info)];
            if (symbol != tables.names + entry.st_name) continue;
            const auto address = tables.base + relocation.r_offset;
            slot.address_ = reinterpret_cast<void**>(address);
            // RELRO is made read-only in whole pages, rounded down at both ends.
            slot.read_only_ = address >= page_of(tables.relro_from) && address < page_of(tables.relro_to);
            return slot;
        }
        slot.reason_ = "this executable does not call " + symbol + " through its import table";
        return slot;
    }

    void* import_slot::redirect(void* target) const
    {
        const auto page = reinterpret_cast<void*>(page_of(reinterpret_cast<uintptr_t>(address_)));
        const auto page_size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        if (read_only_) mprotect(page, page_size, PROT_READ | PROT_WRITE);
        void* previous = __atomic_exchange_n(address_, target, __ATOMIC_SEQ_CST);
        if (read_only_) mprotect(page, page_size, PROT_READ);
        return previous;
    }
}
