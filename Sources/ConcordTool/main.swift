ConcordCommand.main()
